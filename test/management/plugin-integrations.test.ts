/**
 * Plugin integrations end to end (spec §1.7): credentials held by the service reach a partner
 * plugin's check through the gateway — over real sockets, with a real SQLite file, inline and in
 * worker threads — and never come back out in an answer, a request log or the gateway's log lines.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../support/http-server.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

const PLUGIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/plugins/partner-service.mjs");
const ORG_KEY = "pk-org-held-0a1b2c3d4e5f";
const ORG_KEY_2 = "pk-org-rotated-9f8e7d6c5b4a";
const WORKSPACE_KEY = "pk-workspace-own-7766554433";
const PARAMETER_KEY = "pk-from-parameters-1122334455";
const SECRETS = [ORG_KEY, ORG_KEY_2, WORKSPACE_KEY, PARAMETER_KEY];

describe.each(["inline", "pool"] as const)("plugin credentials held by the service (%s executor)", (executor) => {
  let gw: ManagedTestGateway;
  let service: LocalServer;
  let base: string;
  let admin: string;
  let otherWorkspace: string;
  let otherApiKey: string;
  let integrationId: string;

  const guardrail = (parameters: Record<string, unknown> = {}) =>
    JSON.stringify({
      input_guardrails: [
        { id: "screened", deny: true, checks: [{ id: "partner.screen", parameters: { url: service.origin, ...parameters } }] },
      ],
    });

  /** A chat request through the gateway's socket; the answer's text and status. */
  const send = async (apiKey: string, content: string, config = guardrail()) => {
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": apiKey, "x-gateway-config": config },
      body: JSON.stringify({ model: "@mock/m", messages: [{ role: "user", content }] }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) };
  };

  /** The bearer token of the last call the screening service received. */
  const lastToken = (): string | undefined => (service.requests.at(-1) as ReceivedRequest | undefined)?.headers.authorization;

  const adminCall = (method: string, url: string, body?: unknown) => gw.call(method, `/admin/v1${url}`, { key: admin, body });

  beforeAll(async () => {
    service = await startServer((request, response) => {
      const { text } = JSON.parse(request.body) as { text: string };
      if (!request.headers.authorization?.startsWith("Bearer pk-")) return sendJson(response, 401, { error: "bad key" });
      sendJson(response, 200, { flagged: text.includes("forbidden") });
    });
    gw = await startManaged({ file: { plugins: [PLUGIN] }, app: { executor, plugins: [] } });
    admin = gw.keys.admin_key;
    base = await gw.app.listen({ port: 0, host: "127.0.0.1" });
    // A second workspace, with a member key of its own.
    const workspace = await adminCall("POST", "/workspaces", { name: "Other team" });
    otherWorkspace = workspace.body.id;
    const key = await adminCall("POST", "/api-keys", { name: "other", workspace_id: otherWorkspace });
    otherApiKey = key.body.key;
  });
  afterAll(async () => {
    await gw?.close();
    await service?.close();
  });

  it("refuses credentials that do not match the plugin's schema, and unknown plugins, naming the path", async () => {
    const short = await adminCall("POST", "/plugin-integrations", { plugin: "partner", credentials: { apiKey: "pk-short" } });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toContain("credentials.apiKey");
    const extra = await adminCall("POST", "/plugin-integrations", {
      plugin: "partner",
      credentials: { apiKey: ORG_KEY, token: "x" },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toContain("credentials.token: is not a known key");
    const missing = await adminCall("POST", "/plugin-integrations", { plugin: "partner", credentials: { region: "eu" } });
    expect(missing.body.error.message).toContain("credentials.apiKey: is required");
    const unknown = await adminCall("POST", "/plugin-integrations", { plugin: "nosuch", credentials: { apiKey: ORG_KEY } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: "unknown_plugin" });
    expect(unknown.body.error.message).toContain('plugin: "nosuch" is not a loaded plugin');
    const member = await gw.call("POST", "/admin/v1/plugin-integrations", {
      key: gw.keys.api_key,
      body: { plugin: "partner", credentials: { apiKey: ORG_KEY } },
    });
    expect(member.status).toBe(403);
    for (const answer of [short, extra, missing, unknown, member])
      for (const secret of SECRETS) expect(answer.text).not.toContain(secret);
    expect((await adminCall("GET", "/plugin-integrations")).body.data).toEqual([]);
  });

  it("without held credentials the check errors clearly and the service is never called", async () => {
    const answer = await send(gw.keys.api_key, "hello");
    expect(answer.status).toBe(200);
    const [check] = answer.body.hook_results.before_request_hooks[0].checks;
    expect(check.error.message).toContain('plugin "partner" needs credentials');
    expect(service.requests).toHaveLength(0);
  });

  it("hands the organization's credentials to the plugin's check, never returning them", async () => {
    const created = await adminCall("POST", "/plugin-integrations", {
      plugin: "partner",
      name: "Screening service",
      credentials: { apiKey: ORG_KEY },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ plugin: "partner", workspace_id: null, workspaces: "all", credential_keys: ["apiKey"] });
    integrationId = created.body.id;
    const again = await adminCall("POST", "/plugin-integrations", { plugin: "partner", credentials: { apiKey: ORG_KEY } });
    expect(again.status).toBe(409);

    const passed = await send(gw.keys.api_key, "hello");
    expect(passed.status).toBe(200);
    expect(lastToken()).toBe(`Bearer ${ORG_KEY}`);
    expect(passed.body.hook_results.before_request_hooks[0].checks[0]).toMatchObject({ verdict: true, data: { flagged: false } });
    const denied = await send(gw.keys.api_key, "something forbidden");
    expect(denied.status).toBe(446);
    // The hook backend hands them over the same way.
    const hook = await fetch(`${base}/v1/hooks/evaluate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": gw.keys.api_key },
      body: JSON.stringify({
        side: "input",
        guardrails: JSON.parse(guardrail()).input_guardrails,
        request: { messages: [{ role: "user", content: "forbidden words" }] },
      }),
    });
    const hookText = await hook.text();
    expect(JSON.parse(hookText)).toMatchObject({ status: 446, verdict: false });
    expect(hookText).not.toContain(ORG_KEY);
    expect(lastToken()).toBe(`Bearer ${ORG_KEY}`);
    // Every workspace is served by default.
    expect((await send(otherApiKey, "hello")).status).toBe(200);
    expect(lastToken()).toBe(`Bearer ${ORG_KEY}`);
    for (const answer of [created, again, passed, denied]) expect(answer.text).not.toContain(ORG_KEY);
  });

  it("lets a check's parameters.credentials win over the service's", async () => {
    const answer = await send(gw.keys.api_key, "hello", guardrail({ credentials: { apiKey: PARAMETER_KEY } }));
    expect(answer.status).toBe(200);
    expect(lastToken()).toBe(`Bearer ${PARAMETER_KEY}`);
    expect(answer.text).not.toContain(PARAMETER_KEY);
  });

  it("serves only the workspaces it is provisioned to; a workspace's own overrides the organization's", async () => {
    const narrowed = await adminCall("PATCH", `/plugin-integrations/${integrationId}`, { workspaces: [gw.keys.workspace_id] });
    expect(narrowed.body.workspaces).toEqual([gw.keys.workspace_id]);
    const calls = service.requests.length;
    const unserved = await send(otherApiKey, "hello");
    expect(unserved.body.hook_results.before_request_hooks[0].checks[0].error.message).toContain("needs credentials");
    expect(service.requests).toHaveLength(calls);

    expect(
      (await adminCall("PATCH", `/organizations/${gw.keys.organization_id}`, { allow_workspace_integrations: true })).status,
    ).toBe(200);
    const own = await adminCall("POST", "/plugin-integrations", {
      plugin: "partner",
      workspace_id: otherWorkspace,
      credentials: { apiKey: WORKSPACE_KEY, region: "us" },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({
      workspace_id: otherWorkspace,
      workspaces: [otherWorkspace],
      credential_keys: ["apiKey", "region"],
    });
    expect((await send(otherApiKey, "hello")).status).toBe(200);
    expect(lastToken()).toBe(`Bearer ${WORKSPACE_KEY}`);
    expect(JSON.parse(service.requests.at(-1)!.body).region).toBe("us");
    // Back to every workspace: the other workspace's own still wins there.
    await adminCall("PATCH", `/plugin-integrations/${integrationId}`, { workspaces: "all" });
    await send(otherApiKey, "hello");
    expect(lastToken()).toBe(`Bearer ${WORKSPACE_KEY}`);
    await send(gw.keys.api_key, "hello");
    expect(lastToken()).toBe(`Bearer ${ORG_KEY}`);
  });

  it("takes changed credentials on the next request, and none once deleted", async () => {
    const rotated = await adminCall("PATCH", `/plugin-integrations/${integrationId}`, { credentials: { apiKey: ORG_KEY_2 } });
    expect(rotated.status).toBe(200);
    await send(gw.keys.api_key, "hello");
    expect(lastToken()).toBe(`Bearer ${ORG_KEY_2}`);
    const invalid = await adminCall("PATCH", `/plugin-integrations/${integrationId}`, { credentials: { apiKey: 42 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain("credentials.apiKey");
    expect((await adminCall("DELETE", `/plugin-integrations/${integrationId}`)).status).toBe(204);
    const calls = service.requests.length;
    const after = await send(gw.keys.api_key, "hello");
    expect(after.body.hook_results.before_request_hooks[0].checks[0].error.message).toContain("needs credentials");
    expect(service.requests).toHaveLength(calls);
  });

  it("keeps every credential out of admin answers, request logs and log lines", async () => {
    const answers = [
      await adminCall("GET", "/plugin-integrations"),
      await adminCall("GET", `/plugin-integrations?workspace_id=${otherWorkspace}`),
      await adminCall("GET", "/openapi.json"),
    ];
    expect(answers[0]!.body.data).toHaveLength(1);
    expect(answers[1]!.body.data[0]).toMatchObject({ plugin: "partner", credential_keys: ["apiKey", "region"] });
    expect(Object.keys(answers[2]!.body.paths)).toContain("/admin/v1/plugin-integrations/{plugin_integration_id}");
    await gw.app.guardgate.drainLogs();
    await gw.managed.sink.flush();
    const logs = await adminCall("GET", "/logs?limit=100");
    expect(logs.body.data.length).toBeGreaterThanOrEqual(10);
    for (const entry of logs.body.data as Array<{ id: string }>) answers.push(await adminCall("GET", `/logs/${entry.id}`));
    const db = new Database(path.join(gw.dir, "guardgate.db"), { readonly: true });
    const rows = JSON.stringify(db.prepare("SELECT * FROM request_logs").all());
    const sealed = JSON.stringify(db.prepare("SELECT * FROM plugin_integrations").all());
    db.close();
    for (const secret of SECRETS) {
      for (const answer of answers) expect(answer.text).not.toContain(secret);
      expect(rows).not.toContain(secret);
      // At rest the credentials are sealed, not stored in the clear.
      expect(sealed).not.toContain(secret);
      expect(gw.logLines.join("\n")).not.toContain(secret);
    }
  });
});
