import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { OPERATOR } from "../management/actor.js";
import { guardrailRows, type NewLogEntry } from "../store/log-types.js";
import { GatewaySources } from "../management/gateway-sources.js";
import { requestId } from "./log-id.js";
import type { RequestLogRecord } from "./record.js";
import { StoreLogSink } from "./store-sink.js";

const SECRET = "sk-planted-provider-secret-42";

let plane: TestPlane;
let sources: GatewaySources;
beforeEach(async () => {
  plane = await testPlane();
  sources = new GatewaySources(plane.management.context);
});
afterEach(async () => {
  sources.close();
  await plane.close();
});

async function setup(logBodies: boolean) {
  const t = await tenant(plane.management);
  const integration = await plane.management.integrations.create(OPERATOR, t.org.id, {
    slug: "oa",
    provider: "openai",
    credentials: { api_key: SECRET },
  });
  await plane.management.integrations.provision(OPERATOR, integration.id, t.a.id, {});
  await plane.management.workspaces.update(OPERATOR, t.a.id, { settings: { log_bodies: logBodies } });
  return { t, integration };
}

const record = (workspaceId: string, extra: Partial<RequestLogRecord> = {}): RequestLogRecord => ({
  id: requestId(),
  created_at: new Date().toISOString(),
  stream: false,
  workspace_id: workspaceId,
  api_key_id: "key_1",
  route: "/v1/chat/completions",
  request_type: "chatComplete",
  status: 200,
  latency_ms: 12,
  provider: "oa",
  model: "gpt-4o",
  attempts: [
    { target: "targets[0]", status: 500, latency_ms: 3 },
    { target: "targets[1]", status: 200, latency_ms: 5, model: "gpt-4o" },
  ],
  hook_results: { before_request_hooks: [], after_request_hooks: [] },
  usage: { input_tokens: 7, output_tokens: 3 },
  cost: 0.001,
  request: { messages: [{ role: "user", content: `my key is ${SECRET}` }], api_key: "client-supplied-key-123" },
  response: { choices: [] },
  ...extra,
});

describe("StoreLogSink", () => {
  it("derives the log columns and keeps no body unless the workspace asks", async () => {
    const { t, integration } = await setup(false);
    const sink = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 1 });
    await sink.write(record(t.a.id));
    await sink.stop();
    const [entry] = (await plane.store.logs.query({})).items;
    expect(entry).toMatchObject({
      organization_id: t.org.id,
      workspace_id: t.a.id,
      integration_id: integration.id,
      upstream_latency_ms: 8,
      retry_count: 1,
      target: "targets[1]",
      input_tokens: 7,
      output_tokens: 3,
      cost: 0.001,
    });
    expect(entry?.provider_id).toMatch(/^prv_/);
    expect(entry?.record).not.toHaveProperty("request");
    expect(entry?.record).not.toHaveProperty("response");
  });

  it("keeps a record whose body or check data cannot be serialised, saying why", async () => {
    const { t } = await setup(true);
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const sink = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 1 });
    const check = { id: "default.jsonSchema", verdict: false, data: { matchedJson: deep } };
    await sink.write({
      ...record(t.a.id),
      request: deep,
      hook_results: { before_request_hooks: [{ id: "g", checks: [check] }], after_request_hooks: [] },
    } as never);
    await sink.stop();
    const [entry] = (await plane.store.logs.query({})).items;
    expect(entry?.record).not.toHaveProperty("request");
    expect((entry?.record.body_notes as { request: string }).request).toMatch(/^not kept: it cannot be serialised/);
    const kept = (entry?.record.hook_results as { before_request_hooks: Array<{ checks: Array<{ data: unknown }> }> })
      .before_request_hooks[0]?.checks[0];
    expect(kept?.data).toEqual({ omitted: expect.stringMatching(/^not kept: it cannot be serialised/) });
  });

  it("resolves a committed write only once the record is in the store", async () => {
    const { t } = await setup(false);
    // A flush interval far longer than the test: only the committed write's own batch can store it.
    const sink = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 60_000 });
    await sink.write(record(t.a.id), { committed: true });
    expect((await plane.store.logs.query({})).items).toHaveLength(1);
    await sink.stop();
  });

  it("keeps bodies when asked, with credentials removed wherever they appear", async () => {
    const { t } = await setup(true);
    const sink = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 1 });
    await sink.write(record(t.a.id));
    await sink.stop();
    const [entry] = (await plane.store.logs.query({})).items;
    const text = JSON.stringify(entry);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("client-supplied-key-123");
    expect(entry?.record.request).toEqual({
      messages: [{ role: "user", content: "my key is [REDACTED]" }],
      api_key: "[REDACTED]",
    });
  });

  it("writes every record of a burst accepted before stop", async () => {
    const { t } = await setup(false);
    const sink = new StoreLogSink({ store: plane.store, sources, maxBatch: 16, capacity: 32, flushIntervalMs: 5 });
    const writes = Array.from({ length: 500 }, (_, i) => sink.write(record(t.a.id, { id: `log_${String(i).padStart(4, "0")}` })));
    const stopping = sink.stop();
    await Promise.all(writes);
    await stopping;
    let count = 0;
    let cursor: string | null = null;
    do {
      const page = await plane.store.logs.query({ limit: 500, ...(cursor && { cursor }) });
      count += page.items.length;
      cursor = page.next_cursor;
    } while (cursor);
    expect(count).toBe(500);
    expect(sink.written).toBe(500);
  });

  it("sends the record's guardrail rows with its text, the same rows the text gives, secrets cut from names", async () => {
    const { t } = await setup(false);
    const check = (id: string, verdict: boolean, extra: Record<string, unknown> = {}) => ({
      id,
      verdict,
      data: { note: `about ${id}` },
      execution_time: 0.25,
      created_at: "2026-11-27T10:00:00.000Z",
      ...extra,
    });
    const guardrail = (id: string, checks: unknown[], extra: Record<string, unknown> = {}) => ({
      id,
      verdict: true,
      deny: false,
      async: false,
      checks,
      execution_time: 1.5,
      created_at: "2026-11-27T10:00:00.000Z",
      ...extra,
    });
    const hooks = {
      before_request_hooks: [
        guardrail("input-pack", [check("default.wordCount", true), check("default.regexMatch", false)], {
          verdict: false,
          deny: true,
        }),
        guardrail(`named-${SECRET}`, [check(`plugin.${SECRET}`, true, { error: { message: "boom" } })]),
      ],
      after_request_hooks: [guardrail("output-pack", [check("default.characterCount", true)], { async: true })],
    };
    const batches: NewLogEntry[][] = [];
    const sink = new StoreLogSink({
      store: plane.store,
      sources,
      flushIntervalMs: 1,
      insert: async (batch) => {
        batches.push(batch);
        await plane.store.logs.insert(batch);
      },
    });
    await sink.write(record(t.a.id, { hook_results: hooks as RequestLogRecord["hook_results"] }));
    await sink.stop();
    const [entry] = batches.flat();
    expect(entry?.guardrails).toBeDefined();
    expect(entry?.guardrails).toEqual(guardrailRows(JSON.parse(entry?.record as string) as Record<string, unknown>));
    expect(JSON.stringify(entry?.guardrails)).not.toContain(SECRET);
    expect(entry?.guardrails?.map((g) => g.guardrail_id)).toEqual(["input-pack", "named-[REDACTED]", "output-pack"]);
    // The store indexes the rows it was given: the log is found by them.
    expect((await plane.store.logs.query({ guardrail_id: "input-pack" })).items).toHaveLength(1);
    expect((await plane.store.logs.query({ guardrail_id: "output-pack" })).items).toHaveLength(1);
  });

  it("tells whether a workspace keeps bodies: its settings, else the gateway's default", async () => {
    const { t } = await setup(true);
    const sink = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 1 });
    const keeping = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 1, logBodiesDefault: true });
    expect(await sink.keepsBodies(t.a.id)).toBe(true);
    await plane.management.workspaces.update(OPERATOR, t.a.id, { settings: { log_bodies: false } });
    sources.close();
    sources = new GatewaySources(plane.management.context);
    const fresh = new StoreLogSink({ store: plane.store, sources, flushIntervalMs: 1, logBodiesDefault: true });
    expect(await fresh.keepsBodies(t.a.id)).toBe(false);
    // A workspace the store does not know takes the default.
    expect(await sink.keepsBodies("ws_unknown")).toBe(false);
    expect(await keeping.keepsBodies("ws_unknown")).toBe(true);
    await Promise.all([sink.stop(), keeping.stop(), fresh.stop()]);
  });
});
