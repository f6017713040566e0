import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { logEntry } from "../../../test/support/log-entry.js";
import type { ChangeEvent, Store } from "../repository.js";
import { SqliteLogs } from "./logs.js";
import { MIGRATIONS } from "./migrations.js";
import { openSqliteStore } from "./sqlite-store.js";

const dirs: string[] = [];
const stores: Store[] = [];

function tempFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-sqlite-"));
  dirs.push(dir);
  return path.join(dir, "guardgate.db");
}

function open(file: string, pollMs = 0): Store {
  const store = openSqliteStore({ file, externalChangePollMs: pollMs });
  stores.push(store);
  return store;
}

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const T = "2025-01-01T00:00:00.000Z";

async function seed(store: Store) {
  await store.organizations.create({
    id: "org1",
    name: "Org",
    plan: "developer",
    guardrails_enabled: true,
    allow_workspace_integrations: false,
    settings: {},
    created_at: T,
    updated_at: T,
  });
  await store.workspaces.create({
    id: "ws1",
    organization_id: "org1",
    name: "W",
    settings: {},
    rate_limit: null,
    created_at: T,
    updated_at: T,
  });
}

describe("SQLite store", () => {
  it("migrates an empty file, in WAL mode, and reopens without migrating again", async () => {
    const file = tempFile();
    const store = open(file);
    await store.close();
    const db = new Database(file, { readonly: true });
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all();
    expect(versions).toEqual(MIGRATIONS.map((m) => m.version));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(["organizations", "workspaces", "api_keys", "integrations", "request_logs"]));
    db.close();
    const again = open(file);
    expect(await again.organizations.list()).toEqual([]);
  });

  it("refuses a database written by a newer schema", async () => {
    const file = tempFile();
    await open(file).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', ?)").run(T);
    db.close();
    expect(() => openSqliteStore({ file, externalChangePollMs: 0 })).toThrow(/schema version 999/);
  });

  it("round-trips records, with booleans and JSON fields intact", async () => {
    const store = open(tempFile());
    await seed(store);
    expect(await store.organizations.get("org1")).toMatchObject({
      guardrails_enabled: true,
      allow_workspace_integrations: false,
      settings: {},
    });
    const updated = await store.workspaces.update("ws1", { rate_limit: { requests_per_minute: 5 } }, "2025-01-02T00:00:00.000Z");
    expect(updated).toMatchObject({ rate_limit: { requests_per_minute: 5 }, updated_at: "2025-01-02T00:00:00.000Z", name: "W" });
    expect(await store.workspaces.update("nope", { name: "x" }, T)).toBeUndefined();
  });

  it("versions guardrails, with optimistic concurrency", async () => {
    const store = open(tempFile());
    await seed(store);
    const record = {
      workspace_id: "ws1",
      id: "g",
      name: "G",
      definition: { checks: [{ id: "default.wordCount" }] },
      version: 1,
      created_at: T,
      updated_at: T,
    };
    expect(await store.guardrails.insert(record)).toMatchObject({ version: 1 });
    expect(await store.guardrails.insert(record)).toBeUndefined();
    const v2 = await store.guardrails.replace({
      workspace_id: "ws1",
      id: "g",
      name: "G2",
      definition: record.definition,
      updated_at: T,
    });
    expect(v2).toMatchObject({ version: 2, name: "G2", created_at: T });
    expect(
      await store.guardrails.replace(
        { workspace_id: "ws1", id: "g", name: "G3", definition: record.definition, updated_at: T },
        1,
      ),
    ).toBeUndefined();
    expect(
      await store.guardrails.replace(
        { workspace_id: "ws1", id: "g", name: "G3", definition: record.definition, updated_at: T },
        2,
      ),
    ).toMatchObject({ version: 3 });
  });

  it("announces its own writes, and notices another connection's", async () => {
    const file = tempFile();
    const store = open(file, 20);
    const events: ChangeEvent[] = [];
    store.changes.subscribe((e) => events.push(e));
    await seed(store);
    expect(events.map((e) => e.entity)).toEqual(["organization", "workspace"]);
    const other = open(file);
    await other.workspaces.update("ws1", { name: "renamed" }, T);
    await expect.poll(() => events.some((e) => e.entity === "external"), { timeout: 2000 }).toBe(true);
  });

  it("does not take the request log's writes on another connection for a change of records", async () => {
    const file = tempFile();
    const store = open(file, 20);
    const events: ChangeEvent[] = [];
    await seed(store);
    store.changes.subscribe((e) => events.push(e));
    const writer = new Database(file);
    try {
      const logs = new SqliteLogs(writer);
      for (let i = 0; i < 5; i++) {
        await logs.insert([logEntry(`l${i}`, T)]);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    } finally {
      writer.close();
    }
    expect(await store.logs.get("l4")).toBeDefined();
    expect(events).toEqual([]);
  });

  it("announces another process's write that came just before a write of its own", async () => {
    const file = tempFile();
    const store = open(file, 50);
    await seed(store);
    const events: ChangeEvent[] = [];
    store.changes.subscribe((e) => events.push(e));
    const other = open(file);
    await other.workspaces.update("ws1", { name: "renamed elsewhere" }, T);
    // Before this store's next look: its own write moves the version past the other's.
    await store.organizations.update("org1", { name: "renamed here" }, T);
    await expect.poll(() => events.some((e) => e.entity === "external"), { timeout: 2000 }).toBe(true);
  });

  it("deleting a workspace removes its records and logs", async () => {
    const store = open(tempFile());
    await seed(store);
    await store.logs.insert([logEntry("l1", T)]);
    await store.workspaces.delete("ws1");
    expect(await store.logs.get("l1")).toBeUndefined();
    expect((await store.logs.aggregate({})).guardrails).toEqual([]);
  });

  it("holds one plugin integration per plugin and scope, serving all workspaces or the listed ones", async () => {
    const store = open(tempFile());
    await seed(store);
    await store.workspaces.create({
      id: "ws2",
      organization_id: "org1",
      name: "W2",
      settings: {},
      rate_limit: null,
      created_at: T,
      updated_at: T,
    });
    const events: ChangeEvent[] = [];
    store.changes.subscribe((event) => events.push(event));
    const record = (id: string, workspaceId: string | null, workspaces: "all" | string[]) => ({
      id,
      organization_id: "org1",
      workspace_id: workspaceId,
      plugin: "partner",
      name: "Partner",
      workspaces,
      credentials_sealed: `sealed-${id}`,
      credential_keys: ["apiKey"],
      created_at: T,
      updated_at: T,
    });
    expect(await store.pluginIntegrations.create(record("pin1", null, ["ws1"]))).toMatchObject({ workspaces: ["ws1"] });
    expect(await store.pluginIntegrations.create(record("pin2", null, "all"))).toBeUndefined();
    await store.pluginIntegrations.create(record("pin3", "ws2", ["ws2"]));
    expect(events.map((e) => e.entity)).toEqual(["plugin_integration", "plugin_integration"]);
    expect((await store.pluginIntegrations.listServing("org1", "ws1")).map((r) => r.id)).toEqual(["pin1"]);
    expect((await store.pluginIntegrations.listServing("org1", "ws2")).map((r) => r.id)).toEqual(["pin3"]);
    expect((await store.pluginIntegrations.listServing("org1", "ws2"))[0]?.credentials_sealed).toBe("sealed-pin3");
    expect(await store.pluginIntegrations.find("org1", null, "partner")).toMatchObject({ id: "pin1" });
    expect(await store.pluginIntegrations.get("pin1")).not.toHaveProperty("credentials_sealed");

    await store.pluginIntegrations.update("pin1", { workspaces: "all" }, T);
    expect((await store.pluginIntegrations.listServing("org1", "ws2")).map((r) => r.id).sort()).toEqual(["pin1", "pin3"]);
    await store.pluginIntegrations.update("pin1", { workspaces: ["ws1", "ws2"] }, T);
    // A deleted workspace leaves the selection, so a new workspace of the same id inherits nothing.
    await store.workspaces.delete("ws2");
    expect((await store.pluginIntegrations.get("pin1"))?.workspaces).toEqual(["ws1"]);
    expect(await store.pluginIntegrations.get("pin3")).toBeUndefined();
    expect(await store.pluginIntegrations.delete("pin1")).toBe(true);
    expect(await store.pluginIntegrations.list({ organizationId: "org1" })).toEqual([]);
  });
});

describe("SQLite request logs", () => {
  async function withLogs() {
    const store = open(tempFile());
    await seed(store);
    const entries = Array.from({ length: 25 }, (_, i) =>
      logEntry(
        `log${String(i).padStart(2, "0")}`,
        new Date(Date.parse(T) + i * 1000).toISOString(),
        {
          status: i % 5 === 0 ? 446 : 200,
          model: i % 2 ? "m1" : "m2",
        },
        i % 5 === 0 ? [true, false] : [true],
      ),
    );
    await store.logs.insert(entries);
    return store;
  }

  it("writes a batch once: writing it again is a no-op", async () => {
    const store = open(tempFile());
    await seed(store);
    await store.logs.insert([logEntry("x", T)]);
    await store.logs.insert([logEntry("x", T)]);
    expect((await store.logs.query({})).items).toHaveLength(1);
    expect((await store.logs.aggregate({})).guardrails[0]?.runs).toBe(1);
  });

  it("takes a record already encoded as JSON text, and indexes its results as from an object", async () => {
    const store = open(tempFile());
    await seed(store);
    const entry = logEntry("as-text", T, {}, [true, false]);
    await store.logs.insert([{ ...entry, record: JSON.stringify(entry.record) }]);
    expect((await store.logs.get("as-text"))?.record).toEqual(entry.record);
    expect(await store.logs.query({ check_id: "default.regexMatch", verdict: "fail" })).toMatchObject({
      items: [{ id: "as-text" }],
    });
  });

  it("pages newest first with a cursor, without gaps or repeats", async () => {
    const store = await withLogs();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.logs.query({ limit: 7, ...(cursor && { cursor }) });
      seen.push(...page.items.map((e) => e.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(seen[0]).toBe("log24");
    expect(new Set(seen).size).toBe(25);
    await expect(store.logs.query({ cursor: "garbage" })).rejects.toThrow(/cursor/);
  });

  it("filters by time, status, model, guardrail, check and verdict", async () => {
    const store = await withLogs();
    const ids = async (filter: Parameters<Store["logs"]["query"]>[0]) =>
      (await store.logs.query({ limit: 100, ...filter })).items.map((e) => e.id);
    expect(await ids({ from: "2025-01-01T00:00:20.000Z" })).toEqual(["log24", "log23", "log22", "log21", "log20"]);
    expect(await ids({ from: "2025-01-01T00:00:20.000Z", to: "2025-01-01T00:00:22.000Z" })).toEqual(["log21", "log20"]);
    expect(await ids({ status: [446] })).toEqual(["log20", "log15", "log10", "log05", "log00"]);
    expect((await ids({ model: "m1" })).length).toBe(12);
    expect(await ids({ verdict: "fail" })).toEqual(["log20", "log15", "log10", "log05", "log00"]);
    expect((await ids({ guardrail_id: "g1", verdict: "pass" })).length).toBe(20);
    expect(await ids({ check_id: "default.regexMatch", verdict: "fail" })).toHaveLength(5);
    expect(await ids({ check_id: "default.regexMatch", verdict: "pass" })).toEqual([]);
    expect(await ids({ guardrail_id: "other" })).toEqual([]);
    expect(await ids({ workspace_id: "ws2" })).toEqual([]);
  });

  it("aggregates per guardrail and per check, with percentiles", async () => {
    const store = await withLogs();
    const aggregate = await store.logs.aggregate({ from: T });
    expect(aggregate.guardrails).toEqual([
      { guardrail_id: "g1", runs: 25, passed: 20, failed: 5, latency_ms: { p50: 2, p90: 2, p95: 2, p99: 2, max: 2 } },
    ]);
    const regex = aggregate.checks.find((c) => c.check_id === "default.regexMatch");
    expect(regex).toMatchObject({ runs: 5, passed: 0, failed: 5, errored: 0, latency_ms: { max: 2 } });
    expect(aggregate.checks.find((c) => c.check_id === "default.wordCount")).toMatchObject({ runs: 25, passed: 25 });
  });

  it("sums spend by provider, by integration in a workspace, and since a time", async () => {
    const store = await withLogs();
    expect(await store.logs.spend({ provider_id: "prv1" })).toBeCloseTo(12.5);
    expect(
      await store.logs.spend({ integration_id: "int1", workspace_id: "ws1", since: "2025-01-01T00:00:20.000Z" }),
    ).toBeCloseTo(2.5);
    expect(await store.logs.spend({ provider_id: "none" })).toBe(0);
  });
});
