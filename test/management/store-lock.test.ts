/**
 * A gateway over SQLite while another process holds the file's write lock (as the CLI or a
 * `sqlite3` shell does), over real sockets: a write waits for the lock without holding the event
 * loop (`/health` answers while it waits), succeeds once the lock is released, and past the wait's
 * bound is a 503 `store_busy` with retry-after, never a 500. Requests logged meanwhile are all
 * written once the lock is free: the log's writer thread keeps them.
 */
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { DATABASE_FILE } from "../../server/store/data-dir.js";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";
import { holdWriteLock, type LockHolder } from "../support/sqlite-lock.js";

let gateway: ManagedTestGateway;
let url: string;
const holders: LockHolder[] = [];

beforeAll(async () => {
  gateway = await startManaged();
  url = await gateway.app.listen({ host: "127.0.0.1", port: 0 });
});

afterEach(async () => {
  for (const holder of holders.splice(0)) await holder.release();
});

afterAll(async () => {
  await gateway?.close();
});

async function hold(): Promise<LockHolder> {
  const holder = await holdWriteLock(path.join(gateway.dir, DATABASE_FILE), "EXCLUSIVE");
  holders.push(holder);
  return holder;
}

/** A request over a socket; `settled` turns true once its answer arrived. */
function send(method: string, route: string, key: string, body?: unknown) {
  const state = { settled: false };
  const answer = fetch(`${url}${route}`, {
    method,
    headers: { "x-gateway-api-key": key, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).then(async (response) => {
    state.settled = true;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answer bodies field by field
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  });
  return { state, answer };
}

const guardrail = (id: string) => ({ id, checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] });

/** Resolves once `condition` holds, looking again on each turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe("a SQLite store whose write lock another process holds", () => {
  it("keeps serving while a write waits for the lock, and the write succeeds once it is released", async () => {
    const { admin_key: admin, workspace_id: ws } = gateway.keys;
    const holder = await hold();
    const store = gateway.managed.store;
    const insert = store.guardrails.insert.bind(store.guardrails);
    let reached = false;
    const spy = vi.spyOn(store.guardrails, "insert").mockImplementation((record) => {
      reached = true;
      return insert(record);
    });
    try {
      const write = send("POST", `/admin/v1/workspaces/${ws}/guardrails`, admin, guardrail("while-locked"));
      await until(() => reached);
      // The write is at the store, the lock still held: /health is answered all the same.
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect({ writeAnswered: write.state.settled, lockHeld: holder.held }).toEqual({ writeAnswered: false, lockHeld: true });
      await holder.release();
      const answer = await write.answer;
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ id: "while-locked" });
    } finally {
      spy.mockRestore();
    }
  });

  it("answers 503 store_busy with retry-after once the wait's bound is spent, and loses no request log", async () => {
    const { admin_key: admin, api_key: apiKey, workspace_id: ws } = gateway.keys;
    const before = gateway.logLines.length;
    const holder = await hold();
    // Answered while the lock is held; its log record waits in the writer thread's queue.
    const served = await send("POST", "/v1/chat/completions", apiKey, chat("@mock/m", "logged while locked")).answer;
    expect(served.status).toBe(200);
    const refused = await send("POST", `/admin/v1/workspaces/${ws}/guardrails`, admin, guardrail("refused")).answer;
    expect(holder.held).toBe(true);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: "store_busy", message: expect.stringMatching(/the store is locked/) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Nothing was written: the guardrail does not exist.
    await holder.release();
    expect((await send("GET", `/admin/v1/workspaces/${ws}/guardrails/refused`, admin).answer).status).toBe(404);
    await gateway.app.guardgate.drainLogs();
    await gateway.managed.sink.flush();
    const logs = (await send("GET", "/admin/v1/logs", admin).answer).body.data as Array<{ route: string; status: number }>;
    expect(logs.filter((log) => log.route === "/v1/chat/completions")).toMatchObject([{ status: 200 }]);
    const lines = gateway.logLines.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.some((line) => line.level === 40 && /the store/.test(line.msg))).toBe(true);
    expect(lines.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([]);
  });
});
