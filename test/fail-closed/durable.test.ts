/**
 * `settings.log_durable`: every answered request has its record on disk, even when the process is
 * killed without warning. Without it, records of the last few milliseconds of answers are lost to a
 * SIGKILL (docs/management.md says how many); with it, an answer leaves only after its commit.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { spawnServe } from "../support/serve-process.js";

const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Serves with `log_durable` as given, sends requests from 16 clients and kills the process mid-stream. */
async function killDuringTraffic(durable: boolean): Promise<{ answered: string[]; logged: Set<string> }> {
  const cwd = mkdtempSync(path.join(tmpdir(), "guardgate-durable-"));
  dirs.push(cwd);
  const configPath = path.join(cwd, "gateway.json");
  writeFileSync(configPath, JSON.stringify({ settings: { log_durable: durable } }));
  const dataDir = path.join(cwd, "data");
  const server = await spawnServe(["--config", configPath, "--data-dir", dataDir], {
    cwd,
    onSpawn: (child) => children.push(child),
  });
  const keys = JSON.parse(readFileSync(path.join(dataDir, "initial-keys.json"), "utf8"));
  const answered: string[] = [];
  let killed = false;
  const client = async (n: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-gateway-api-key": keys.api_key },
          body: JSON.stringify({ model: "@mock/m", messages: [{ role: "user", content: `client ${n} request ${i}` }] }),
        });
        await response.text();
        const id = response.headers.get("x-gateway-request-id");
        if (response.status === 200 && id && !killed) answered.push(id);
      } catch {
        // The connection the kill cut: not an answer.
      }
      // The kill comes right after an answer, while others are in flight and their records queued.
      if (!killed && answered.length >= 200) {
        killed = true;
        server.child.kill("SIGKILL");
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, (_, n) => client(n)));
  await server.exited;
  const db = new Database(path.join(dataDir, "guardgate.db"), { readonly: true });
  const logged = new Set(db.prepare("SELECT id FROM request_logs").pluck().all() as string[]);
  db.close();
  return { answered, logged };
}

describe("log_durable", () => {
  it("keeps the record of every answered request through a SIGKILL", async () => {
    const { answered, logged } = await killDuringTraffic(true);
    expect(answered.length).toBeGreaterThanOrEqual(200);
    expect(answered.filter((id) => !logged.has(id))).toEqual([]);
  });
});
