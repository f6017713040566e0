import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OPERATOR } from "../../server/management/actor.js";
import { FakeUpstream } from "../support/fake-upstream.js";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

let gw: ManagedTestGateway;
let admin: string;
let apiKey: string;
let mockIntegration: string;
beforeEach(async () => {
  gw = await startManaged();
  admin = gw.keys.admin_key;
  apiKey = gw.keys.api_key;
  const integrations = await gw.call("GET", "/admin/v1/integrations", { key: admin });
  mockIntegration = integrations.body.data.find((i: { slug: string }) => i.slug === "mock").id;
});
afterEach(async () => {
  await gw.close();
});

async function settleLogs() {
  await gw.app.guardgate.drainLogs();
  await gw.managed.sink.flush();
}

describe("rate limits and budgets on the request path", () => {
  it("answers 429 with retry-after once the provisioned requests per minute are used", async () => {
    await gw.call("PUT", `/admin/v1/integrations/${mockIntegration}/workspaces/${gw.keys.workspace_id}`, {
      key: admin,
      body: { rate_limit: { requests_per_minute: 2 } },
    });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push(await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@mock/m") }));
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
    const refused = statuses[2]!;
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(refused.body.error).toMatchObject({ code: "rate_limit_exceeded", type: "rate_limit_error" });
    expect(refused.body.error.message).toContain(
      `the rate limit of integration "mock" in workspace ${gw.keys.workspace_id} (2 requests per minute) is reached`,
    );
    await settleLogs();
    expect((await gw.call("GET", "/admin/v1/logs?status=429", { key: admin })).body.data).toHaveLength(1);
  });

  it("applies a workspace-wide rate limit whatever the provider", async () => {
    await gw.call("PATCH", `/admin/v1/workspaces/${gw.keys.workspace_id}`, {
      key: admin,
      body: { rate_limit: { requests_per_minute: 1 } },
    });
    expect((await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@mock/m") })).status).toBe(200);
    const second = await gw.call("POST", "/v1/messages", { key: apiKey, body: { ...chat("@mock/m"), max_tokens: 10 } });
    expect(second.status).toBe(429);
    expect(second.body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
  });

  it("answers 402 once a provider's budget is spent, counting token usage at the model's price", async () => {
    // One currency unit per token, so the first answer spends the budget.
    await gw.call("PATCH", `/admin/v1/integrations/${mockIntegration}`, {
      key: admin,
      body: { pricing: { "*": { input: 1_000_000, output: 1_000_000 } } },
    });
    await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/providers`, {
      key: admin,
      body: { slug: "capped", integration_id: mockIntegration, budget: { limit: 3, period: "total" } },
    });
    const first = await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@capped/m", "one two three") });
    expect(first.status).toBe(200);
    await settleLogs();
    const second = await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@capped/m") });
    expect(second.status).toBe(402);
    expect(second.body.error.code).toBe("budget_exhausted");
    expect(second.body.error.message).toMatch(
      /the budget of provider "capped" is spent \(\d+\.\d+ of 3\.00\); raise the budget to continue/,
    );
    // The spend is in the log, so it survives a restart; the mock provider itself is not capped.
    const [logged] = (await gw.call("GET", "/admin/v1/logs?status=200", { key: admin })).body.data;
    expect(logged).toMatchObject({ input_tokens: 3, output_tokens: expect.any(Number), provider: "@capped" });
    expect(logged.cost).toBe(logged.input_tokens + logged.output_tokens);
    expect((await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@mock/m") })).status).toBe(200);
  });

  it("counts a streamed answer's tokens (estimated when the stream reports none)", async () => {
    await gw.call("PUT", `/admin/v1/integrations/${mockIntegration}/workspaces/${gw.keys.workspace_id}`, {
      key: admin,
      body: { rate_limit: { tokens_per_minute: 5 } },
    });
    const streamed = await gw.call("POST", "/v1/chat/completions", {
      key: apiKey,
      body: chat("@mock/m", "please count every one of these words", { stream: true }),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain("data: [DONE]");
    await settleLogs();
    const [entry] = (await gw.call("GET", "/admin/v1/logs", { key: admin })).body.data;
    expect(entry.input_tokens).toBeGreaterThan(5);
    expect(entry.output_tokens).toBeGreaterThan(0);
    const view = await gw.call("GET", `/admin/v1/logs/${entry.id}`, { key: admin });
    expect(view.status).toBe(200);
    // The tokens of the stream used up the minute's allowance.
    expect((await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@mock/m") })).status).toBe(429);
  });

  it("refuses a model outside the provider's allow-list", async () => {
    await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/providers`, {
      key: admin,
      body: { slug: "narrow", integration_id: mockIntegration, allowed_models: ["mock-model"] },
    });
    expect((await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@narrow/mock-model") })).status).toBe(200);
    const refused = await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@narrow/gpt-4o") });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('model "gpt-4o" is not allowed through provider "@narrow"; it allows mock-model');
  });
});

describe("plan gating on the request path", () => {
  const inline = (guardrail: Record<string, unknown>) => ({
    "x-gateway-config": JSON.stringify({ input_guardrails: [guardrail] }),
  });

  it("refuses an inline guardrail whose check the plan does not include, and any guardrail with the flag off", async () => {
    const org = gw.keys.organization_id;
    await gw.managed.management.organizations.update(OPERATOR, org, { plan: "developer" });
    const custom = await gw.call("POST", "/v1/chat/completions", {
      key: apiKey,
      body: chat("@mock/m"),
      headers: inline({ "test.sees": { word: "x" } }),
    });
    expect(custom.status).toBe(403);
    expect(custom.body.error.code).toBe("plan_forbids_check");
    expect(custom.body.error.message).toContain("check test.sees");
    expect(custom.body.error.message).toContain("developer plan");
    expect(
      (
        await gw.call("POST", "/v1/chat/completions", {
          key: apiKey,
          body: chat("@mock/m"),
          headers: inline({ wordCount: { maxWords: 9 } }),
        })
      ).status,
    ).toBe(200);
    const hook = await gw.call("POST", "/v1/hooks/evaluate", {
      key: apiKey,
      body: { side: "input", guardrails: [{ "pro.always": {} }], request: chat("m") },
    });
    expect(hook.status).toBe(403);
    await gw.managed.management.organizations.update(OPERATOR, org, { guardrails_enabled: false });
    const off = await gw.call("POST", "/v1/chat/completions", {
      key: apiKey,
      body: chat("@mock/m"),
      headers: inline({ wordCount: { maxWords: 9 } }),
    });
    expect(off.status).toBe(403);
    expect(off.body.error.code).toBe("guardrails_disabled");
    // A request without guardrails is unaffected.
    expect((await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@mock/m") })).status).toBe(200);
  });
});

describe("the hot-path cache", () => {
  it("serves records from memory and takes a changed guardrail on the next request", async () => {
    const base = `/admin/v1/workspaces/${gw.keys.workspace_id}`;
    const guardrail = {
      id: "g",
      side: "input",
      async: false,
      deny: true,
      checks: [{ id: "default.wordCount", parameters: { maxWords: 50 } }],
    };
    await gw.call("POST", `${base}/guardrails`, { key: admin, body: guardrail });
    await gw.call("POST", `${base}/configs`, { key: admin, body: { id: "c", config: { input_guardrails: ["g"] } } });
    const send = () =>
      gw.call("POST", "/v1/chat/completions", {
        key: apiKey,
        body: chat("@mock/m", "three words here"),
        headers: { "x-gateway-config": "c" },
      });
    expect((await send()).status).toBe(200);
    const reads = gw.managed.sources.storeReads;
    for (let i = 0; i < 5; i++) expect((await send()).status).toBe(200);
    expect(gw.managed.sources.storeReads).toBe(reads);
    const updated = await gw.call("PUT", `${base}/guardrails/g`, {
      key: admin,
      body: { ...guardrail, checks: [{ id: "default.wordCount", parameters: { maxWords: 2 } }] },
    });
    expect(updated.body.version).toBe(2);
    const denied = await send();
    expect(denied.status).toBe(446);
    expect(denied.body.hook_results.before_request_hooks[0].checks[0].data.maxWords).toBe(2);
  });
});

describe("credentials never leave the service", () => {
  it("a planted provider secret appears in no API response, log record or log line", async () => {
    const SECRET = "sk-planted-0a1b2c3d4e5f6a7b8c9d";
    const upstream = await new FakeUpstream().start();
    try {
      const ws = gw.keys.workspace_id;
      await gw.call("PATCH", `/admin/v1/workspaces/${ws}`, { key: admin, body: { settings: { log_bodies: true } } });
      const created = await gw.call("POST", "/admin/v1/integrations", {
        key: admin,
        body: {
          slug: "up",
          provider: "openai",
          base_url: upstream.baseUrl,
          credentials: { api_key: SECRET, headers: { "x-secret": SECRET } },
        },
      });
      await gw.call("PUT", `/admin/v1/integrations/${created.body.id}/workspaces/${ws}`, { key: admin, body: {} });
      // A misbehaving upstream echoes the credential back; a client pastes it into a message.
      upstream.enqueue({ kind: "answer", text: `your key is ${SECRET}` });
      const responses = [
        await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@up/gpt-4o-mini", `remember ${SECRET}`) }),
        await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@up/gpt-4o-mini", "hi") }),
      ];
      expect(responses.map((r) => r.status)).toEqual([200, 200]);
      expect(upstream.requests[1]?.headers.authorization).toBe(`Bearer ${SECRET}`);
      await settleLogs();
      const logs = await gw.call("GET", "/admin/v1/logs", { key: admin });
      const views = await Promise.all(
        logs.body.data.map((l: { id: string }) => gw.call("GET", `/admin/v1/logs/${l.id}`, { key: admin })),
      );
      expect(views[0]?.body.request).toBeDefined();
      const everything = [
        ...responses,
        logs,
        ...views,
        await gw.call("GET", "/admin/v1/integrations", { key: admin }),
        await gw.call("GET", `/admin/v1/integrations/${created.body.id}`, { key: admin }),
        await gw.call("GET", `/admin/v1/workspaces/${ws}/providers`, { key: admin }),
        await gw.call("GET", "/v1/models", { key: apiKey }),
        await gw.call("GET", "/admin/v1/analytics/guardrails", { key: admin }),
      ];
      for (const response of everything) expect(response.text).not.toContain(SECRET);
      const db = new Database(path.join(gw.dir, "guardgate.db"), { readonly: true });
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      for (const table of tables) expect(JSON.stringify(db.prepare(`SELECT * FROM ${table}`).all())).not.toContain(SECRET);
      db.close();
      expect(gw.logLines.length).toBeGreaterThan(0);
      for (const line of gw.logLines) expect(line).not.toContain(SECRET);
    } finally {
      await upstream.close();
    }
  });
});
