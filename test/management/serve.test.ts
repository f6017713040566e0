import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { spawnServe } from "../support/serve-process.js";

// The built command, run as users run it: a real process, real sockets, real signals.
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts `guardgate serve` in `cwd`; resolves once it listens, with its URL and output so far. */
function serve(cwd: string, args: string[] = []) {
  return spawnServe(args, { cwd, onSpawn: (child) => children.push(child) });
}

async function post(url: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": key, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, id: response.headers.get("x-gateway-request-id"), body: await response.text() };
}

describe("guardgate serve over the store", () => {
  it("starts with no settings, names the generated keys' file, and logs a mock request", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "guardgate-fresh-"));
    dirs.push(cwd);
    const server = await serve(cwd);
    const keysFile = path.join(cwd, ".guardgate", "initial-keys.json");
    const keys = JSON.parse(readFileSync(keysFile, "utf8"));
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(cwd, ".guardgate", "secret.key")).mode & 0o777).toBe(0o600);
    // Not a terminal: the start-up lines are pino lines, which name the keys' file, never the keys.
    expect(server.output()).toContain(keysFile);
    expect(server.output()).not.toContain(keys.admin_key);
    expect(server.output()).not.toContain(keys.api_key);
    expect(server.output()).toContain("generated a secret key");
    const answer = await post(`${server.url}/v1/chat/completions`, keys.api_key, {
      model: "@mock/mock-model",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).choices[0].message.content).toBe("You said: Hello");
    let logs: { data: Array<{ id: string; status: number }> } = { data: [] };
    for (let i = 0; i < 50 && logs.data.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      logs = (await (
        await fetch(`${server.url}/admin/v1/logs`, { headers: { "x-gateway-api-key": keys.admin_key } })
      ).json()) as typeof logs;
    }
    expect(logs.data).toEqual([expect.objectContaining({ id: answer.id, status: 200 })]);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    // A second start finds the store: no new keys.
    const again = await serve(cwd);
    expect(again.output()).not.toContain("first start");
    again.child.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  });

  it("loses no request log when stopped with SIGTERM during a burst", async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), "guardgate-burst-"));
    dirs.push(cwd);
    const server = await serve(cwd, ["--data-dir", path.join(cwd, "data")]);
    const keys = JSON.parse(readFileSync(path.join(cwd, "data", "initial-keys.json"), "utf8"));
    // Asynchronous guardrails finish after the answer: their records are the last to be written.
    const config = JSON.stringify({ input_guardrails: [{ async: true, wordCount: { maxWords: 50 } }] });
    const answered: string[] = [];
    let refused = 0;
    const total = 300;
    let sent = 0;
    let stopped = false;
    const worker = async () => {
      while (sent < total) {
        sent++;
        try {
          const result = await post(
            `${server.url}/v1/chat/completions`,
            keys.api_key,
            { model: "@mock/m", messages: [{ role: "user", content: `request ${sent}` }] },
            { "x-gateway-config": config },
          );
          if (result.status === 200 && result.id) answered.push(result.id);
          else refused++;
        } catch {
          refused++;
        }
        if (!stopped && answered.length >= 60) {
          stopped = true;
          server.child.kill("SIGTERM");
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(await server.exited).toBe(0);
    expect(answered.length).toBeGreaterThanOrEqual(60);
    const db = new Database(path.join(cwd, "data", "guardgate.db"), { readonly: true });
    const logged = new Set(db.prepare("SELECT id FROM request_logs").pluck().all() as string[]);
    const withAsync = db.prepare("SELECT COUNT(DISTINCT log_id) FROM log_guardrails WHERE async = 1").pluck().get() as number;
    db.close();
    const missing = answered.filter((id) => !logged.has(id));
    expect(missing).toEqual([]);
    expect(withAsync).toBe(logged.size);
    // The stop came during the burst: the requests after it were turned away, not answered and lost.
    expect(refused).toBeGreaterThan(0);
    expect(answered.length + refused).toBe(total);
  });
});
