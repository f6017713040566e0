import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

let gw: ManagedTestGateway;
let admin: string;
let apiKey: string;
beforeEach(async () => {
  gw = await startManaged();
  admin = gw.keys.admin_key;
  apiKey = gw.keys.api_key;
});
afterEach(async () => {
  await gw.close();
});

const guardrail = {
  id: "short",
  name: "Short prompts",
  side: "input",
  async: false,
  deny: true,
  checks: [{ id: "default.wordCount", parameters: { maxWords: 5 } }],
};

describe("admin API: authentication and documents", () => {
  it("answers 401 without a key or with an unknown one", async () => {
    expect((await gw.call("GET", "/admin/v1/workspaces")).body).toEqual({
      error: { code: "missing_api_key", message: "x-gateway-api-key: the header is required; send an admin key" },
    });
    expect((await gw.call("GET", "/admin/v1/workspaces", { key: "gg-nope" })).status).toBe(401);
  });

  it("serves an OpenAPI 3.1 document of every route", async () => {
    const { status, body } = await gw.call("GET", "/admin/v1/openapi.json");
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining([
        "/admin/v1/workspaces",
        "/admin/v1/api-keys/{key_id}",
        "/admin/v1/integrations/{integration_id}/workspaces/{workspace_id}",
        "/admin/v1/workspaces/{workspace_id}/providers/{slug}",
        "/admin/v1/workspaces/{workspace_id}/guardrails/{id}",
        "/admin/v1/workspaces/{workspace_id}/configs/{id}",
        "/admin/v1/logs",
        "/admin/v1/logs/{log_id}",
        "/admin/v1/analytics/guardrails",
      ]),
    );
    expect(body.components.securitySchemes.apiKey).toEqual({ type: "apiKey", in: "header", name: "x-gateway-api-key" });
    expect(body.paths["/admin/v1/workspaces/{workspace_id}/guardrails"].post.responses["201"]).toBeDefined();
  });

  it("GET /me names the calling key, its role and reach, for every role", async () => {
    const owner = await gw.call("GET", "/admin/v1/me", { key: admin });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ role: "org_admin", organization_id: gw.keys.organization_id, workspace_id: null });
    const member = await gw.call("GET", "/admin/v1/me", { key: apiKey });
    expect(member.body).toMatchObject({ role: "member", workspace_id: gw.keys.workspace_id });
    expect(member.body.key).toBeUndefined();
    expect(JSON.stringify(member.body)).not.toContain(apiKey);
    expect((await gw.call("GET", "/admin/v1/me")).status).toBe(401);
    const document = (await gw.call("GET", "/admin/v1/openapi.json")).body;
    expect(document.paths["/admin/v1/me"].get.responses["200"]).toBeDefined();
  });

  it("answers 404 in its own error shape for an unknown admin route", async () => {
    const { status, body } = await gw.call("GET", "/admin/v1/nothing", { key: admin });
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });
});

describe("admin API: every resource", () => {
  it("organizations, workspaces and API keys", async () => {
    const orgs = await gw.call("GET", "/admin/v1/organizations", { key: admin });
    expect(orgs.body.data).toHaveLength(1);
    const orgId = gw.keys.organization_id;
    expect((await gw.call("GET", `/admin/v1/organizations/${orgId}`, { key: admin })).body.plan).toBe("enterprise");
    const renamed = await gw.call("PATCH", `/admin/v1/organizations/${orgId}`, { key: admin, body: { name: "Acme" } });
    expect(renamed.body.name).toBe("Acme");
    expect(
      (await gw.call("PATCH", `/admin/v1/organizations/${orgId}`, { key: admin, body: { plan: "developer" } })).body.error.code,
    ).toBe("operator_only");

    const created = await gw.call("POST", "/admin/v1/workspaces", {
      key: admin,
      body: { name: "Team B", settings: { log_bodies: true } },
    });
    expect(created.status).toBe(201);
    const ws = created.body.id as string;
    expect((await gw.call("GET", "/admin/v1/workspaces", { key: admin })).body.data).toHaveLength(2);
    expect(
      (await gw.call("PATCH", `/admin/v1/workspaces/${ws}`, { key: admin, body: { rate_limit: { requests_per_minute: 9 } } }))
        .body.rate_limit,
    ).toEqual({ requests_per_minute: 9 });

    const key = await gw.call("POST", "/admin/v1/api-keys", {
      key: admin,
      body: { name: "ci", role: "workspace_admin", workspace_id: ws },
    });
    expect(key.status).toBe(201);
    expect(key.body.key).toMatch(/^gg-/);
    const keyId = key.body.id as string;
    const fetched = await gw.call("GET", `/admin/v1/api-keys/${keyId}`, { key: admin });
    expect(fetched.body).not.toHaveProperty("key");
    expect(fetched.text).not.toContain(key.body.key);
    expect(fetched.body.hint).toBe(`${key.body.key.slice(0, 7)}…${key.body.key.slice(-4)}`);
    expect((await gw.call("PATCH", `/admin/v1/api-keys/${keyId}`, { key: admin, body: { role: "member" } })).body.role).toBe(
      "member",
    );
    expect((await gw.call("GET", "/admin/v1/api-keys", { key: admin })).body.data).toHaveLength(3);
    expect((await gw.call("DELETE", `/admin/v1/api-keys/${keyId}`, { key: admin })).status).toBe(204);
    expect((await gw.call("GET", "/admin/v1/workspaces", { key: key.body.key })).status).toBe(401);
    expect((await gw.call("DELETE", `/admin/v1/workspaces/${ws}`, { key: admin })).status).toBe(204);
    expect((await gw.call("GET", `/admin/v1/workspaces/${ws}`, { key: admin })).status).toBe(404);
  });

  it("integrations, provisioning and providers", async () => {
    const ws = gw.keys.workspace_id;
    const integration = await gw.call("POST", "/admin/v1/integrations", {
      key: admin,
      body: {
        slug: "openai-prod",
        provider: "openai",
        credentials: { api_key: "sk-admin-test-credential" },
        allowed_models: ["gpt-4o-mini", "gpt-4o"],
      },
    });
    expect(integration.status).toBe(201);
    expect(integration.body).toMatchObject({ has_credentials: true, allowed_models: ["gpt-4o-mini", "gpt-4o"] });
    expect(integration.text).not.toContain("sk-admin-test-credential");
    const id = integration.body.id as string;
    const provisioned = await gw.call("PUT", `/admin/v1/integrations/${id}/workspaces/${ws}`, {
      key: admin,
      body: { budget: { limit: 50 }, rate_limit: { requests_per_minute: 100 } },
    });
    expect(provisioned.status).toBe(200);
    expect(provisioned.body.provisioning.budget).toEqual({ limit: 50, period: "monthly" });
    expect(provisioned.body.provider.slug).toBe("openai-prod");
    expect((await gw.call("GET", `/admin/v1/integrations/${id}/workspaces`, { key: admin })).body.data).toHaveLength(1);

    const provider = await gw.call("POST", `/admin/v1/workspaces/${ws}/providers`, {
      key: admin,
      body: { slug: "cheap", integration_id: id, budget: { limit: 5 }, allowed_models: ["gpt-4o-mini"] },
    });
    expect(provider.status).toBe(201);
    const looser = await gw.call("POST", `/admin/v1/workspaces/${ws}/providers`, {
      key: admin,
      body: { slug: "loose", integration_id: id, budget: { limit: 500 } },
    });
    expect(looser.status).toBe(400);
    expect(looser.body.error.message).toContain("may only be stricter");
    expect(
      (await gw.call("GET", `/admin/v1/workspaces/${ws}/providers`, { key: admin })).body.data
        .map((p: { slug: string }) => p.slug)
        .sort(),
    ).toEqual(["cheap", "mock", "openai-prod"]);
    const patched = await gw.call("PATCH", `/admin/v1/workspaces/${ws}/providers/cheap`, {
      key: admin,
      body: { name: "Cheap models" },
    });
    expect(patched.body.name).toBe("Cheap models");
    expect((await gw.call("DELETE", `/admin/v1/workspaces/${ws}/providers/cheap`, { key: admin })).status).toBe(204);
    expect((await gw.call("GET", `/admin/v1/workspaces/${ws}/providers/cheap`, { key: admin })).status).toBe(404);
    const renamed = await gw.call("PATCH", `/admin/v1/integrations/${id}`, {
      key: admin,
      body: { name: "OpenAI", credentials: null },
    });
    expect(renamed.body).toMatchObject({ name: "OpenAI", has_credentials: false });
    expect((await gw.call("DELETE", `/admin/v1/integrations/${id}/workspaces/${ws}`, { key: admin })).status).toBe(204);
    expect((await gw.call("DELETE", `/admin/v1/integrations/${id}`, { key: admin })).status).toBe(204);
    expect((await gw.call("GET", `/admin/v1/integrations/${id}`, { key: admin })).status).toBe(404);
  });

  it("guardrails and configs, versioned, validated and refused clearly", async () => {
    const base = `/admin/v1/workspaces/${gw.keys.workspace_id}`;
    const created = await gw.call("POST", `${base}/guardrails`, { key: admin, body: guardrail });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: "short", name: "Short prompts", version: 1 });
    expect((await gw.call("POST", `${base}/guardrails`, { key: admin, body: guardrail })).status).toBe(409);
    const unknownField = await gw.call("POST", `${base}/guardrails`, {
      key: admin,
      body: { ...guardrail, id: "x", colour: "red" },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toBe("body.colour: is not a known field");
    const badParameter = await gw.call("POST", `${base}/guardrails`, {
      key: admin,
      body: { id: "bad", checks: [{ id: "default.wordCount", parameters: { maxWords: -1 } }] },
    });
    expect(badParameter.status).toBe(400);
    expect(badParameter.body.error.message).toContain("checks[0].parameters.maxWords");
    const v2 = await gw.call("PUT", `${base}/guardrails/short`, { key: admin, body: { ...guardrail, version: 1, deny: false } });
    expect(v2.body.version).toBe(2);
    expect((await gw.call("PUT", `${base}/guardrails/short`, { key: admin, body: { ...guardrail, version: 1 } })).status).toBe(
      409,
    );

    const config = await gw.call("POST", `${base}/configs`, {
      key: admin,
      body: { id: "prod", config: { input_guardrails: ["short"] } },
    });
    expect(config.status).toBe(201);
    const broken = await gw.call("POST", `${base}/configs`, {
      key: admin,
      body: { id: "broken", config: { retry: { attempts: "3" } } },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toContain('config "broken": retry.attempts');
    expect((await gw.call("GET", `${base}/configs`, { key: admin })).body.data).toHaveLength(1);
    expect((await gw.call("DELETE", `${base}/guardrails/short`, { key: admin })).status).toBe(409);
    expect(
      (await gw.call("PUT", `${base}/configs/prod`, { key: admin, body: { config: { retry: { attempts: 1 } } } })).body.version,
    ).toBe(2);
    expect((await gw.call("DELETE", `${base}/guardrails/short`, { key: admin })).status).toBe(204);
    expect((await gw.call("DELETE", `${base}/configs/prod`, { key: admin })).status).toBe(204);
    expect((await gw.call("GET", `${base}/configs/prod`, { key: admin })).status).toBe(404);
  });

  it("the check catalog says what the plan includes", async () => {
    const { body } = await gw.call("GET", "/admin/v1/checks", { key: admin });
    expect(body.data.find((c: { id: string }) => c.id === "default.regexMatch")).toMatchObject({
      class: "BASIC",
      available: true,
    });
    for (const id of ["model.language", "model.classifier", "model.llmJudge"]) {
      expect(body.data.find((c: { id: string }) => c.id === id)).toMatchObject({ class: "PRO", plugin: "model" });
    }
  });
});

describe("workspace isolation through HTTP", () => {
  async function second() {
    const ws = (await gw.call("POST", "/admin/v1/workspaces", { key: admin, body: { name: "B" } })).body.id as string;
    const bAdmin = (
      await gw.call("POST", "/admin/v1/api-keys", { key: admin, body: { name: "b", role: "workspace_admin", workspace_id: ws } })
    ).body.key as string;
    const bApi = (await gw.call("POST", "/admin/v1/api-keys", { key: admin, body: { name: "b api", workspace_id: ws } })).body
      .key as string;
    return { ws, bAdmin, bApi };
  }

  it("a key of workspace B can never read, use or log into workspace A", async () => {
    const a = gw.keys.workspace_id;
    await gw.call("POST", `/admin/v1/workspaces/${a}/guardrails`, { key: admin, body: guardrail });
    const { ws: b, bAdmin, bApi } = await second();
    // Read: A's records are missing to B.
    for (const url of [
      `/admin/v1/workspaces/${a}`,
      `/admin/v1/workspaces/${a}/guardrails`,
      `/admin/v1/workspaces/${a}/guardrails/short`,
      `/admin/v1/workspaces/${a}/providers`,
    ]) {
      expect((await gw.call("GET", url, { key: bAdmin })).status).toBe(404);
    }
    expect((await gw.call("GET", `/admin/v1/logs?workspace_id=${a}`, { key: bAdmin })).status).toBe(404);
    // Use: A's guardrail id and A's saved records do not resolve for B's key.
    const viaGuardrail = await gw.call("POST", "/v1/chat/completions", {
      key: bApi,
      body: chat("@mock/m"),
      headers: { "x-gateway-config": JSON.stringify({ input_guardrails: ["short"] }) },
    });
    expect(viaGuardrail.status).toBe(400);
    expect(viaGuardrail.body.error.message).toContain('unknown guardrail "short"');
    // A's own request is logged in A, and B's admin cannot open it.
    const mine = await gw.call("POST", "/v1/chat/completions", { key: apiKey, body: chat("@mock/m") });
    expect(mine.status).toBe(200);
    const theirs = await gw.call("POST", "/v1/chat/completions", { key: bApi, body: chat("@mock/m") });
    expect(theirs.status).toBe(200);
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    const aLogs = (await gw.call("GET", "/admin/v1/logs", { key: admin })).body.data as Array<{
      id: string;
      workspace_id: string;
    }>;
    const aEntry = aLogs.find((l) => l.workspace_id === a)!;
    const bLogs = (await gw.call("GET", "/admin/v1/logs", { key: bAdmin })).body.data as Array<{ workspace_id: string }>;
    expect(bLogs.length).toBeGreaterThan(0);
    expect(bLogs.every((l) => l.workspace_id === b)).toBe(true);
    expect((await gw.call("GET", `/admin/v1/logs/${aEntry.id}`, { key: bAdmin })).status).toBe(404);
    expect((await gw.call("GET", `/admin/v1/logs/${aEntry.id}`, { key: admin })).status).toBe(200);
  });

  it("roles: a member reads its gallery and records but changes nothing; logs need an admin", async () => {
    const base = `/admin/v1/workspaces/${gw.keys.workspace_id}`;
    const models = await gw.call("GET", "/v1/models", { key: apiKey });
    expect(models.status).toBe(200);
    expect(models.body.data[0]).toMatchObject({ id: "@mock/mock-model", object: "model", owned_by: "mock" });
    expect(models.body.data[0].usage.curl).toContain("@mock/mock-model");
    expect((await gw.call("GET", `${base}/guardrails`, { key: apiKey })).status).toBe(200);
    const denied = await gw.call("POST", `${base}/guardrails`, { key: apiKey, body: guardrail });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe("saving a guardrail needs the workspace_admin role; this key has the member role");
    expect((await gw.call("GET", "/admin/v1/logs", { key: apiKey })).status).toBe(403);
    expect((await gw.call("POST", "/admin/v1/workspaces", { key: apiKey, body: { name: "x" } })).status).toBe(403);
    expect((await gw.call("GET", "/v1/models", { key: admin })).status).toBe(400);
    expect((await gw.call("GET", `/v1/models?workspace_id=${gw.keys.workspace_id}`, { key: admin })).status).toBe(200);
  });
});

describe("request logs through the admin API", () => {
  it("lists with filters and cursors, opens the log view, and aggregates", async () => {
    const base = `/admin/v1/workspaces/${gw.keys.workspace_id}`;
    await gw.call("POST", `${base}/guardrails`, {
      key: admin,
      body: {
        id: "checks",
        side: "input",
        async: false,
        checks: [
          { id: "default.wordCount", parameters: { maxWords: 3 } },
          { id: "default.regexMatch", parameters: { rule: "(" } },
        ],
        on_fail: { feedback: { value: -1, weight: 1, metadata: { team: "a" } } },
      },
    });
    const config = JSON.stringify({ input_guardrails: ["checks"] });
    const statuses: number[] = [];
    for (const text of ["one two", "one two three four five", "ok"]) {
      statuses.push(
        (
          await gw.call("POST", "/v1/chat/completions", {
            key: apiKey,
            body: chat("@mock/m", text),
            headers: { "x-gateway-config": config },
          })
        ).status,
      );
    }
    expect(statuses).toEqual([200, 246, 200]);
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    const failed = await gw.call("GET", "/admin/v1/logs?verdict=fail&guardrail_id=checks", { key: admin });
    expect(failed.body.data).toHaveLength(1);
    expect(failed.body.data[0]).toMatchObject({
      status: 246,
      guardrails: { checks_passed: 0, checks_failed: 1, checks_errored: 1 },
    });
    expect(
      (await gw.call("GET", "/admin/v1/logs?status=200&check_id=default.wordCount&verdict=pass", { key: admin })).body.data,
    ).toHaveLength(2);
    const page1 = await gw.call("GET", "/admin/v1/logs?limit=2", { key: admin });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await gw.call("GET", `/admin/v1/logs?limit=2&cursor=${page1.body.next_cursor}`, { key: admin });
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.next_cursor).toBeNull();
    expect((await gw.call("GET", "/admin/v1/logs?verdict=maybe", { key: admin })).status).toBe(400);

    const view = await gw.call("GET", `/admin/v1/logs/${failed.body.data[0].id}`, { key: admin });
    expect(view.status).toBe(200);
    const [result] = view.body.guardrail_results;
    expect(result).toMatchObject({
      id: "checks",
      side: "input",
      verdict: false,
      checks_passed: 0,
      checks_failed: 1,
      checks_errored: 1,
    });
    expect(result.checks.map((c: { id: string; outcome: string }) => `${c.id}:${c.outcome}`)).toEqual([
      "default.wordCount:failed",
      "default.regexMatch:errored",
    ]);
    expect(typeof result.checks[0].execution_time).toBe("number");
    expect(result.feedback).toEqual({
      value: -1,
      weight: 1,
      metadata: { team: "a", successfulChecks: "", failedChecks: "default.wordCount", erroredChecks: "default.regexMatch" },
    });
    expect(view.body.hook_results.before_request_hooks).toHaveLength(1);

    const aggregate = await gw.call("GET", "/admin/v1/analytics/guardrails", { key: admin });
    expect(aggregate.body.guardrails).toEqual([
      expect.objectContaining({ guardrail_id: "checks", runs: 3, passed: 2, failed: 1 }),
    ]);
    expect(aggregate.body.checks.find((c: { check_id: string }) => c.check_id === "default.regexMatch")).toMatchObject({
      runs: 3,
      errored: 3,
    });
    expect(aggregate.body.guardrails[0].latency_ms).toEqual(
      expect.objectContaining({ p50: expect.any(Number), p99: expect.any(Number) }),
    );
  });
});
