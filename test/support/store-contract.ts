/**
 * The store's behaviour, written once and run against every implementation (SQLite and Postgres):
 * records, versions, change announcements across instances, request logs, their filters,
 * aggregates and spend. Each implementation's test file supplies a fresh, empty store per test.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChangeEvent, Store } from "../../server/store/repository.js";
import { logEntry } from "./log-entry.js";

/** How a test file gives the suite its stores. */
export interface StoreHarness {
  /**
   * A fresh, empty store noticing other instances' writes every `pollMs` (0: never), and a way
   * to open another instance over the same data, as another process would.
   */
  open(pollMs?: number): Promise<{ store: Store; openAnother(): Promise<Store> }>;
}

const T = "2025-01-01T00:00:00.000Z";
const T2 = "2025-01-02T00:00:00.000Z";

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

/** A second workspace of `org1`. */
async function addWorkspace(store: Store, id: string) {
  await store.workspaces.create({
    id,
    organization_id: "org1",
    name: id.toUpperCase(),
    settings: {},
    rate_limit: null,
    created_at: T,
    updated_at: T,
  });
}

/** Whether an event tells of another instance's change to workspace `ws1`. */
function tellsOfWs1(event: ChangeEvent): boolean {
  return event.entity === "external" || (event.entity === "workspace" && event.id === "ws1");
}

/** Registers the suite for one implementation. */
export function describeStoreContract(name: string, harness: StoreHarness): void {
  const stores: Store[] = [];

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  async function open(pollMs = 0) {
    const opened = await harness.open(pollMs);
    stores.push(opened.store);
    return {
      store: opened.store,
      openAnother: async () => {
        const other = await opened.openAnother();
        stores.push(other);
        return other;
      },
    };
  }

  describe(`${name} store`, () => {
    it("round-trips records, with booleans and JSON fields intact", async () => {
      const { store } = await open();
      await seed(store);
      expect(await store.organizations.get("org1")).toMatchObject({
        guardrails_enabled: true,
        allow_workspace_integrations: false,
        settings: {},
      });
      const updated = await store.workspaces.update(
        "ws1",
        { rate_limit: { requests_per_minute: 5 } },
        "2025-01-02T00:00:00.000Z",
      );
      expect(updated).toMatchObject({
        rate_limit: { requests_per_minute: 5 },
        updated_at: "2025-01-02T00:00:00.000Z",
        name: "W",
      });
      expect(await store.workspaces.update("nope", { name: "x" }, T)).toBeUndefined();
      expect(await store.workspaces.count()).toBe(1);
      await store.meta.set("k", "v1");
      await store.meta.set("k", "v2");
      expect(await store.meta.get("k")).toBe("v2");
      expect(await store.meta.get("absent")).toBeUndefined();
    });

    it("keeps keys, integrations, provisioning and providers, and finds them by hash and slug", async () => {
      const { store } = await open();
      await seed(store);
      await store.apiKeys.create({
        id: "k1",
        organization_id: "org1",
        workspace_id: "ws1",
        name: "K",
        role: "member",
        hash: "h1",
        hint: "gg-…1",
        created_at: T,
        updated_at: T,
      });
      expect(await store.apiKeys.get("k1")).not.toHaveProperty("hash");
      expect(await store.apiKeys.findByHash("h1")).toMatchObject({ id: "k1", hash: "h1" });
      expect((await store.apiKeys.list({ organizationId: "org1", workspaceId: "ws1" })).map((k) => k.id)).toEqual(["k1"]);
      await store.integrations.create({
        id: "int1",
        organization_id: "org1",
        workspace_id: null,
        slug: "openai",
        name: "OpenAI",
        provider: "openai",
        base_url: null,
        allowed_models: ["gpt-4o"],
        pricing: { "gpt-4o": { input: 1, output: 2 } },
        auto_provision: null,
        credentials_sealed: "sealed",
        has_credentials: true,
        created_at: T,
        updated_at: T,
      });
      expect(await store.integrations.findBySlug("org1", "openai")).toMatchObject({ id: "int1", allowed_models: ["gpt-4o"] });
      expect(await store.integrations.get("int1")).not.toHaveProperty("credentials_sealed");
      expect((await store.integrations.getWithSecret("int1"))?.credentials_sealed).toBe("sealed");
      expect((await store.integrations.list({ organizationId: "org1", workspaceId: null })).map((i) => i.id)).toEqual(["int1"]);
      expect(await store.integrations.list({ organizationId: "org1", workspaceId: "ws1" })).toEqual([]);
      const provisioning = {
        integration_id: "int1",
        workspace_id: "ws1",
        budget: null,
        rate_limit: null,
        created_at: T,
        updated_at: T,
      };
      await store.provisioning.put(provisioning);
      expect(
        await store.provisioning.put({
          ...provisioning,
          budget: { limit: 5, period: "monthly" },
          updated_at: "2025-01-03T00:00:00.000Z",
        }),
      ).toMatchObject({ budget: { limit: 5, period: "monthly" }, created_at: T, updated_at: "2025-01-03T00:00:00.000Z" });
      await store.providers.create({
        id: "prv1",
        workspace_id: "ws1",
        slug: "oa",
        name: "OA",
        integration_id: "int1",
        budget: null,
        rate_limit: { requests_per_minute: 3 },
        allowed_models: "all",
        created_at: T,
        updated_at: T,
      });
      expect(await store.providers.findBySlug("ws1", "oa")).toMatchObject({ id: "prv1", allowed_models: "all" });
      expect((await store.providers.list({ integrationId: "int1" })).map((p) => p.id)).toEqual(["prv1"]);
      // Removing the provisioning removes the workspace's providers over it.
      expect(await store.provisioning.delete("int1", "ws1")).toBe(true);
      expect(await store.providers.get("prv1")).toBeUndefined();
      expect(await store.provisioning.list({ workspaceId: "ws1" })).toEqual([]);
    });

    it("keeps all of an atomic unit's writes, across repositories, or none of them", async () => {
      const { store, openAnother } = await open();
      expect(store.atomically).toBeDefined();
      const atomically = store.atomically?.bind(store) as NonNullable<Store["atomically"]>;
      const guardrail = (id: string) => ({
        workspace_id: "ws1",
        id,
        name: id,
        definition: { checks: [{ id: "default.wordCount" }] },
        version: 1,
        created_at: T,
        updated_at: T,
      });
      await expect(
        atomically(async () => {
          await seed(store);
          await store.guardrails.insert(guardrail("kept-not"));
          throw new Error("the last record is wrong");
        }),
      ).rejects.toThrow("the last record is wrong");
      const other = await openAnother();
      expect(await other.organizations.get("org1")).toBeUndefined();
      expect(await store.workspaces.get("ws1")).toBeUndefined();
      const result = await atomically(async () => {
        await seed(store);
        return store.guardrails.insert(guardrail("kept"));
      });
      expect(result?.id).toBe("kept");
      expect(await other.organizations.get("org1")).toBeDefined();
      expect((await other.guardrails.list("ws1")).map((g) => g.id)).toEqual(["kept"]);
    });

    it("versions guardrails, with optimistic concurrency", async () => {
      const { store } = await open();
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
      expect(await store.guardrails.delete("ws1", "g")).toBe(true);
      expect(await store.guardrails.list("ws1")).toEqual([]);
    });

    it("announces its own writes, and notices another instance's", async () => {
      const { store, openAnother } = await open(20);
      const events: ChangeEvent[] = [];
      store.changes.subscribe((e) => events.push(e));
      await seed(store);
      expect(events.map((e) => e.entity)).toEqual(["organization", "workspace"]);
      events.length = 0;
      const other = await openAnother();
      await other.workspaces.update("ws1", { name: "renamed" }, T);
      await expect.poll(() => events.some(tellsOfWs1), { timeout: 2000 }).toBe(true);
    });

    it("does not take request logs written by another instance for a change of records", async () => {
      const { store, openAnother } = await open(20);
      await seed(store);
      const events: ChangeEvent[] = [];
      store.changes.subscribe((e) => events.push(e));
      const other = await openAnother();
      for (let i = 0; i < 5; i++) {
        await other.logs.insert([logEntry(`l${i}`, T)]);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      expect(await store.logs.get("l4")).toBeDefined();
      expect(events).toEqual([]);
    });

    it("announces another instance's write that came just before a write of its own", async () => {
      const { store, openAnother } = await open(50);
      await seed(store);
      const events: ChangeEvent[] = [];
      store.changes.subscribe((e) => events.push(e));
      const other = await openAnother();
      await other.workspaces.update("ws1", { name: "renamed elsewhere" }, T);
      // Before this store's next look: its own write moves the version past the other's.
      await store.organizations.update("org1", { name: "renamed here" }, T);
      await expect.poll(() => events.some(tellsOfWs1), { timeout: 2000 }).toBe(true);
    });

    it("keeps stored responses per workspace, replaced by id, and gone with their workspace", async () => {
      const { store } = await open();
      await seed(store);
      await addWorkspace(store, "ws2");
      const record = {
        id: "resp_1",
        workspace_id: "ws1",
        previous_response_id: null,
        input: [{ role: "user", content: "hi" }],
        response: { id: "resp_1", object: "response", output: [] },
        created_at: T,
      };
      await store.storedResponses.put(record);
      expect(await store.storedResponses.get("ws1", "resp_1")).toEqual(record);
      expect(await store.storedResponses.get("ws2", "resp_1")).toBeUndefined();
      await store.storedResponses.put({ ...record, response: { id: "resp_1", object: "response", output: [{ a: 1 }] } });
      expect((await store.storedResponses.get("ws1", "resp_1"))?.response.output).toEqual([{ a: 1 }]);
      expect(await store.storedResponses.delete("ws2", "resp_1")).toBe(false);
      expect(await store.storedResponses.delete("ws1", "resp_1")).toBe(true);
      expect(await store.storedResponses.get("ws1", "resp_1")).toBeUndefined();
      await store.storedResponses.put(record);
      await store.workspaces.delete("ws1");
      expect(await store.storedResponses.get("ws1", "resp_1")).toBeUndefined();
    });

    it("deleting a workspace removes its records and logs", async () => {
      const { store } = await open();
      await seed(store);
      await store.logs.insert([logEntry("l1", T)]);
      await store.workspaces.delete("ws1");
      expect(await store.logs.get("l1")).toBeUndefined();
      expect((await store.logs.aggregate({})).guardrails).toEqual([]);
    });

    it("keeps MCP servers per workspace with sealed credentials apart, and their pinned tool definitions", async () => {
      const { store } = await open();
      await seed(store);
      const server = {
        id: "mcp1",
        workspace_id: "ws1",
        name: "tools",
        transport: "streamable_http" as const,
        url: "https://tools.example.com/mcp",
        answers: null,
        auth: "oauth_client_credentials" as const,
        oauth: { token_url: "https://auth.example.com/token", scope: "tools" },
        header_names: ["x-team"],
        credentials_sealed: "sealed-blob",
        has_credentials: true,
        trusted: false,
        tools: { allow: ["read_*"], deny: ["read_secrets"] },
        pinning: "approval" as const,
        tool_pack: "standard" as const,
        created_at: T,
        updated_at: T,
      };
      const { credentials_sealed: _sealed, ...shown } = server;
      expect(await store.mcpServers.create(server)).toEqual(shown);
      expect(await store.mcpServers.create({ ...server, id: "mcp2" })).toBeUndefined();
      expect(await store.mcpServers.get("mcp1")).toEqual(shown);
      expect(await store.mcpServers.findByName("ws1", "tools")).toEqual(shown);
      expect(await store.mcpServers.getWithSecret("ws1", "tools")).toEqual(server);
      expect(await store.mcpServers.list("ws1")).toEqual([shown]);
      const updated = await store.mcpServers.update(
        "mcp1",
        {
          tools: { allow: "all", deny: [] },
          oauth: null,
          auth: "none",
          credentials_sealed: null,
          has_credentials: false,
          trusted: true,
        },
        T2,
      );
      expect(updated).toMatchObject({ tools: { allow: "all", deny: [] }, oauth: null, trusted: true, updated_at: T2 });
      expect((await store.mcpServers.getWithSecret("ws1", "tools"))?.credentials_sealed).toBeNull();

      const pin = {
        workspace_id: "ws1",
        server: "tools",
        tool: "read_file",
        status: "pinned" as const,
        hash: "sha256:aa",
        definition: { name: "read_file", description: "Reads.", inputSchema: { type: "object" } },
        pending_hash: null,
        pending_definition: null,
        flagged_at: null,
        created_at: T,
        updated_at: T,
      };
      // The config file's servers pin under workspace "": no workspace row holds them.
      const filePin = { ...pin, workspace_id: "", tool: "echo" };
      await store.mcpToolPins.insertMissing([pin, filePin]);
      // A second first listing keeps the pin held.
      await store.mcpToolPins.insertMissing([{ ...pin, hash: "sha256:bb" }]);
      expect(await store.mcpToolPins.list("ws1", "tools")).toEqual([pin]);
      expect(await store.mcpToolPins.get("", "tools", "echo")).toEqual(filePin);
      const changed = {
        ...pin,
        status: "changed" as const,
        pending_hash: "sha256:cc",
        pending_definition: { name: "read_file", description: "Now sends files away." },
        flagged_at: T2,
        updated_at: T2,
      };
      expect(await store.mcpToolPins.put(changed)).toEqual(changed);
      expect(await store.mcpToolPins.get("ws1", "tools", "read_file")).toEqual(changed);
      expect(await store.mcpToolPins.delete("ws1", "tools", "read_file")).toBe(1);
      expect(await store.mcpToolPins.delete("", "tools")).toBe(1);
      expect(await store.mcpServers.delete("mcp1")).toBe(true);
      expect(await store.mcpServers.get("mcp1")).toBeUndefined();
      await store.mcpServers.create({ ...server, id: "mcp3" });
      await store.workspaces.delete("ws1");
      expect(await store.mcpServers.get("mcp3")).toBeUndefined();
    });

    it("holds one plugin integration per plugin and scope, serving all workspaces or the listed ones", async () => {
      const { store } = await open();
      await seed(store);
      await addWorkspace(store, "ws2");
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

    it("keeps policies of the organisation and of a workspace, and replay reports", async () => {
      const { store } = await open();
      await seed(store);
      await addWorkspace(store, "ws2");
      const events: ChangeEvent[] = [];
      store.changes.subscribe((event) => events.push(event));
      const guardrail = { id: "g1", checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }], deny: true };
      const policy = (id: string, workspaceId: string | null, created: string) => ({
        id,
        organization_id: "org1",
        workspace_id: workspaceId,
        name: `Policy ${id}`,
        mode: "enforce" as const,
        scope: { models: ["@openai/*"] },
        input_guardrails: [guardrail],
        output_guardrails: [],
        created_at: created,
        updated_at: created,
      });
      expect(await store.policies.create(policy("p1", null, T))).toMatchObject({ id: "p1" });
      expect(await store.policies.create(policy("p1", "ws1", T))).toBeUndefined();
      await store.policies.create(policy("p2", "ws1", "2025-01-02T00:00:00.000Z"));
      await store.policies.create(policy("p3", "ws2", "2025-01-03T00:00:00.000Z"));
      expect(events).toContainEqual({ entity: "policy", id: "p2", workspace_id: "ws1" });
      expect(await store.policies.get("p1")).toEqual(policy("p1", null, T));
      expect((await store.policies.listApplying("org1", "ws1")).map((p) => p.id)).toEqual(["p1", "p2"]);
      expect((await store.policies.list({ organizationId: "org1", workspaceId: null })).map((p) => p.id)).toEqual(["p1"]);
      expect((await store.policies.list({ organizationId: "org1", workspaceId: "ws2" })).map((p) => p.id)).toEqual(["p3"]);
      expect((await store.policies.list({ organizationId: "org1" })).length).toBe(3);

      const updated = await store.policies.update(
        "p2",
        { mode: "monitor", scope: { api_keys: ["k1"] } },
        "2025-02-01T00:00:00.000Z",
      );
      expect(updated).toMatchObject({ mode: "monitor", scope: { api_keys: ["k1"] }, input_guardrails: [guardrail] });
      expect(updated?.updated_at).toBe("2025-02-01T00:00:00.000Z");
      expect(await store.policies.update("missing", { name: "x" }, T)).toBeUndefined();
      await store.workspaces.delete("ws2");
      expect(await store.policies.get("p3")).toBeUndefined();
      expect(await store.policies.delete("p2")).toBe(true);
      expect(await store.policies.delete("p2")).toBe(false);
      expect(events.filter((e) => e.entity === "policy").length).toBe(5);

      const report = (id: string, created: string) => ({
        id,
        organization_id: "org1",
        workspace_id: "ws1",
        name: `r-${id}`,
        report: { format: "guardgate.replay/1", totals: { requests: 2 } },
        created_at: created,
      });
      await store.replayReports.create(report("r1", T));
      await store.replayReports.create(report("r2", "2025-01-02T00:00:00.000Z"));
      expect(await store.replayReports.create(report("r1", T))).toBeUndefined();
      expect(await store.replayReports.get("r1")).toEqual(report("r1", T));
      expect((await store.replayReports.list({ organizationId: "org1", workspaceId: "ws1" })).map((r) => r.id)).toEqual([
        "r2",
        "r1",
      ]);
      expect(await store.replayReports.delete("r1")).toBe(true);
      expect((await store.replayReports.list({ organizationId: "org1" })).map((r) => r.id)).toEqual(["r2"]);
    });
  });

  describe(`${name} request logs`, () => {
    async function withLogs() {
      const { store } = await open();
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
      const { store } = await open();
      await seed(store);
      await store.logs.insert([logEntry("x", T)]);
      await store.logs.insert([logEntry("x", T)]);
      expect((await store.logs.query({})).items).toHaveLength(1);
      expect((await store.logs.aggregate({})).guardrails[0]?.runs).toBe(1);
    });

    it("reads back an entry as written", async () => {
      const { store } = await open();
      await seed(store);
      const entry = logEntry("exact", "2025-01-01T10:20:30.456Z", { cost: null, upstream_latency_ms: 7.25 });
      await store.logs.insert([entry]);
      expect(await store.logs.get("exact")).toEqual(entry);
    });

    it("takes a record already encoded as JSON text, and indexes its results as from an object", async () => {
      const { store } = await open();
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
      expect((await ids({ organization_id: "org1", workspace_id: "ws1" })).length).toBe(25);
    });

    it("keeps feedback apart from its log, and filters logs by its value", async () => {
      const store = await withLogs();
      const feedback = (id: string, logId: string, value: number, at = T) => ({
        id,
        log_id: logId,
        organization_id: "org1",
        workspace_id: "ws1",
        value,
        weight: 0.5,
        metadata: { user: "u1" },
        created_at: at,
        updated_at: at,
      });
      expect(
        await store.feedback.insert([
          feedback("fb1", "log03", -8),
          feedback("fb2", "log03", 4, "2025-01-01T00:00:01.000Z"),
          feedback("fb3", "log07", 10),
          // Feedback may come before its log is stored.
          feedback("fb4", "not-yet-written", 1),
        ]),
      ).toBe(true);
      // A batch with a taken id writes nothing.
      expect(await store.feedback.insert([feedback("fb5", "log01", 2), feedback("fb1", "log01", 2)])).toBe(false);
      expect(await store.feedback.get("fb5")).toBeUndefined();
      expect(await store.feedback.get("fb1")).toEqual(feedback("fb1", "log03", -8));
      expect((await store.feedback.forLogs(["log03", "log07", "log09"])).map((f) => f.id)).toEqual(["fb1", "fb3", "fb2"]);
      const ids = async (filter: Parameters<Store["logs"]["query"]>[0]) =>
        (await store.logs.query({ limit: 100, ...filter })).items.map((e) => e.id);
      expect(await ids({ feedback_max: -5 })).toEqual(["log03"]);
      expect(await ids({ feedback_min: 4 })).toEqual(["log07", "log03"]);
      expect(await ids({ feedback_min: 5, feedback_max: 9 })).toEqual([]);
      expect(await ids({ feedback_min: -10, status: [200] })).toEqual(["log07", "log03"]);

      const updated = await store.feedback.update("fb1", { value: 3, metadata: { user: "u2" } }, "2025-02-01T00:00:00.000Z");
      expect(updated).toEqual({
        ...feedback("fb1", "log03", 3),
        metadata: { user: "u2" },
        updated_at: "2025-02-01T00:00:00.000Z",
      });
      expect(await store.feedback.update("nope", { value: 1 }, T)).toBeUndefined();
      expect(await ids({ feedback_max: -5 })).toEqual([]);

      // Feedback goes with its workspace.
      expect(await store.workspaces.delete("ws1")).toBe(true);
      expect(await store.feedback.get("fb3")).toBeUndefined();
    });

    it("keeps datasets with their rows in order, paged, relabelled, and gone with their workspace", async () => {
      const { store } = await open();
      await seed(store);
      const dataset = {
        id: "ds1",
        organization_id: "org1",
        workspace_id: "ws1",
        name: "D",
        filter: { model: "m1", feedback_max: -5 },
        label_rule: "feedback <= -5",
        status: "building" as const,
        rows: 0,
        positives: 0,
        skipped: { no_body: 0 },
        created_at: T,
        updated_at: T,
      };
      expect(await store.datasets.create(dataset)).toEqual(dataset);
      expect(await store.datasets.create(dataset)).toBeUndefined();
      const row = (seq: number) => ({
        dataset_id: "ds1",
        seq,
        log_id: `log${seq}`,
        input: `input ${seq} ✓ "quoted"`,
        output: seq % 2 ? null : `output ${seq}`,
        verdicts: { g1: seq % 3 ? ("pass" as const) : ("fail" as const) },
        failed_checks: seq % 3 ? [] : ["g1/default.regexMatch"],
        feedback: seq % 4 ? [] : [-7, 2],
        label: (seq % 3 ? 0 : 1) as 0 | 1,
      });
      await store.datasets.appendRows(Array.from({ length: 600 }, (_, i) => row(i)));
      await store.datasets.appendRows([row(600)]);
      const read: unknown[] = [];
      let after = -1;
      for (;;) {
        const page = await store.datasets.rows("ds1", { after, limit: 250 });
        if (!page.length) break;
        read.push(...page);
        after = page.at(-1)!.seq;
      }
      expect(read).toEqual(Array.from({ length: 601 }, (_, i) => row(i)));
      expect(await store.datasets.label("ds1", "log1", 1)).toBe(0);
      expect(await store.datasets.label("ds1", "log1", 1)).toBe(1);
      expect(await store.datasets.label("ds1", "nope", 1)).toBeUndefined();
      expect((await store.datasets.rows("ds1", { after: 0, limit: 1 }))[0]?.label).toBe(1);
      const ready = await store.datasets.update(
        "ds1",
        { status: "ready", rows: 601, positives: 201, skipped: { no_body: 3 } },
        T2,
      );
      expect(ready).toEqual({ ...dataset, status: "ready", rows: 601, positives: 201, skipped: { no_body: 3 }, updated_at: T2 });
      expect((await store.datasets.list({ organizationId: "org1", workspaceId: "ws1" })).map((d) => d.id)).toEqual(["ds1"]);
      expect(await store.datasets.list({ organizationId: "org1", workspaceId: "ws2" })).toEqual([]);
      expect(await store.workspaces.delete("ws1")).toBe(true);
      expect(await store.datasets.get("ds1")).toBeUndefined();
      expect(await store.datasets.rows("ds1", { after: -1, limit: 10 })).toEqual([]);
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
      expect((await store.logs.aggregate({ check_id: "default.regexMatch" })).checks.map((c) => c.check_id)).toEqual([
        "default.regexMatch",
      ]);
    });

    it("takes percentiles by nearest rank", async () => {
      const { store } = await open();
      await seed(store);
      const entries = [5, 1, 4, 2, 3].map((t, i) => {
        const entry = logEntry(`p${i}`, T);
        const hooks = (entry.record.hook_results as { before_request_hooks: Array<{ execution_time: number }> })
          .before_request_hooks;
        hooks[0]!.execution_time = t;
        return entry;
      });
      await store.logs.insert(entries);
      expect((await store.logs.aggregate({})).guardrails[0]?.latency_ms).toEqual({ p50: 3, p90: 5, p95: 5, p99: 5, max: 5 });
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
}
