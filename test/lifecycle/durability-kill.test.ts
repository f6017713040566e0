/**
 * `settings.log_durable` on every route: the process is killed (SIGKILL) right after each answer,
 * restarted on the same data folder, and the answered request's record is there. Every route an
 * answer leaves by goes through the one pipeline, so none of them may answer before its commit.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnServe } from "../support/serve-process.js";

const children: ChildProcess[] = [];
let cwd: string;
let configPath: string;
let dataDir: string;

beforeAll(() => {
  cwd = mkdtempSync(path.join(tmpdir(), "guardgate-durability-"));
  configPath = path.join(cwd, "gateway.json");
  dataDir = path.join(cwd, "data");
  writeFileSync(
    configPath,
    JSON.stringify({
      settings: { log_durable: true },
      guardrails: [
        { id: "short", async: false, deny: true, checks: [{ id: "default.wordCount", parameters: { maxWords: 50 } }] },
      ],
    }),
  );
});

afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(cwd, { recursive: true, force: true });
});

/** One request to a freshly started gateway, the process killed the moment its answer is read. */
async function answerThenKill(route: string, body: unknown): Promise<{ id: string; status: number; text: string }> {
  const server = await spawnServe(["--config", configPath, "--data-dir", dataDir], {
    cwd,
    onSpawn: (child) => children.push(child),
  });
  const keys = JSON.parse(readFileSync(path.join(dataDir, "initial-keys.json"), "utf8")) as { api_key: string };
  const response = await fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-gateway-api-key": keys.api_key },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  server.child.kill("SIGKILL");
  await server.exited;
  return { id: response.headers.get("x-gateway-request-id") ?? "", status: response.status, text };
}

/** The records found once the gateway is started again on the same data folder. */
async function recordsAfterRestart(): Promise<Map<string, string>> {
  const server = await spawnServe(["--config", configPath, "--data-dir", dataDir], {
    cwd,
    onSpawn: (child) => children.push(child),
  });
  const db = new Database(path.join(dataDir, "guardgate.db"), { readonly: true });
  const rows = db.prepare("SELECT id, route FROM request_logs").all() as { id: string; route: string }[];
  db.close();
  server.child.kill("SIGKILL");
  await server.exited;
  return new Map(rows.map((row) => [row.id, row.route]));
}

const chat = { model: "@mock/m", messages: [{ role: "user", content: "hello there" }] };

describe("log_durable through a SIGKILL right after the answer", () => {
  it("keeps the record of every route's answered request", async () => {
    const answered: { route: string; id: string }[] = [];
    const cases: [string, unknown][] = [
      ["/v1/hooks/evaluate", { side: "input", guardrails: ["short"], request: { messages: chat.messages } }],
      ["/v1/hooks/webhook?guardrails=short", { request: { json: { messages: chat.messages } }, eventType: "beforeRequestHook" }],
      ["/v1/chat/completions", chat],
      ["/v1/chat/completions", { ...chat, stream: true }],
    ];
    for (const [route, body] of cases) {
      const { id, status, text } = await answerThenKill(route, body);
      expect(status, `${route}: ${text}`).toBe(200);
      expect(id).not.toBe("");
      if ((body as { stream?: boolean }).stream) expect(text).toContain("[DONE]");
      answered.push({ route: route.split("?")[0] as string, id });
    }
    const records = await recordsAfterRestart();
    expect(answered.map(({ route, id }) => ({ route, id, recorded: records.get(id) }))).toEqual(
      answered.map(({ route, id }) => ({ route, id, recorded: route })),
    );
  }, 300_000);
});
