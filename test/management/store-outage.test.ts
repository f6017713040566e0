/**
 * While Postgres is down, the admin API answers 503 `store_unavailable` with retry-after (never a
 * 500), and says so at warn; tested with a real Postgres server stopped under a running gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";
import { type PostgresServer, startPostgres } from "../support/postgres-server.js";

let postgres: PostgresServer;
let gateway: ManagedTestGateway;

beforeAll(async () => {
  postgres = await startPostgres();
  gateway = await startManaged({ file: { store: { url: await postgres.createDatabase() } } });
});

afterAll(async () => {
  await gateway?.close().catch(() => {});
  await postgres?.stop();
});

describe("the admin API (and the model routes' key checks) while Postgres is down", () => {
  it("answers 503 store_unavailable with retry-after on reads, writes and key checks, never 500", async () => {
    const admin = gateway.keys.admin_key;
    const ws = gateway.keys.workspace_id;
    expect((await gateway.call("GET", "/admin/v1/me", { key: admin })).status).toBe(200);
    await postgres.stop();

    const calls = [
      await gateway.call("GET", `/admin/v1/workspaces/${ws}/guardrails`, { key: admin }),
      await gateway.call("POST", `/admin/v1/workspaces/${ws}/guardrails`, {
        key: admin,
        body: { id: "g", checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] },
      }),
      await gateway.call("GET", "/admin/v1/logs", { key: admin }),
      // A key never seen before must be looked up in the store.
      await gateway.call("GET", "/admin/v1/me", { key: "gg-a-key-this-instance-has-never-seen-0000" }),
      // The model routes look keys up in the same store.
      await gateway.call("POST", "/v1/chat/completions", {
        key: "gg-another-key-never-seen-0000000000",
        body: { model: "@mock/m", messages: [{ role: "user", content: "hi" }] },
      }),
    ];
    for (const answer of calls) {
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe("store_unavailable");
      expect(answer.body.error.message).toMatch(/the store .* cannot be reached/);
      expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(await gateway.call("GET", "/ready")).toMatchObject({ status: 503, body: { checks: { store: "unavailable" } } });
    const lines = gateway.logLines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.some((line) => line.level === 40 && /the store cannot be reached/.test(line.msg))).toBe(true);
    expect(lines.some((line) => line.level >= 50)).toBe(false);
  });
});
