/**
 * Policies end to end: a managed gateway over a real store on a real socket, called with the
 * official `openai` client. Policies are saved through the admin API and applied to requests whose
 * config attaches nothing, to one key and not another, against a config naming the same guardrail,
 * in monitor mode, on streams, on the Anthropic route, on the Responses API and on the hook backend.
 */
import type { AddressInfo } from "node:net";
import OpenAI, { APIError } from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app.js";
import { OPERATOR } from "../../server/management/actor.js";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

const TOKEN = "metrics-token-0123456789abcdef";
let gw: ManagedTestGateway;
let admin: string;
let baseUrl: string;

beforeEach(async () => {
  gw = await startManaged({ file: { metrics: { token: TOKEN } } });
  admin = gw.keys.admin_key;
  await gw.app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = `http://127.0.0.1:${(gw.app.server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await gw?.close();
});

/** At most three words, or the request is denied. */
const SHORT = { id: "short", deny: true, checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] };
const LONG_TEXT = "far too many words for this policy";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answer bodies field by field
type Body = Record<string, any>;

/** The body of the last refused answer: the SDK's error keeps only its `error` member, not hook_results. */
let refusedBody: Body | undefined;

function client(key: string, config?: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${baseUrl}/v1`,
    apiKey: "sk-unused",
    maxRetries: 0,
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(url, init);
      if (!response.ok) refusedBody = (await response.clone().json()) as Body;
      return response;
    },
    defaultHeaders: {
      "x-gateway-api-key": key,
      ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
    },
  });
}

async function ask(key: string, content: string, config?: unknown) {
  try {
    const { data, response } = await client(key, config)
      .chat.completions.create({ model: "@mock/m", messages: [{ role: "user", content }] })
      .withResponse();
    return { status: response.status, body: data as unknown as Body };
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    expect(refusedBody?.error).toEqual(error.error);
    return { status: error.status as number, body: refusedBody as Body };
  }
}

async function savePolicy(key: string, body: Record<string, unknown>) {
  const saved = await gw.call("POST", "/admin/v1/policies", { key, body });
  return saved;
}

async function newKey(role: string, workspaceId: string | null = gw.keys.workspace_id) {
  const created = await gw.call("POST", "/admin/v1/api-keys", {
    key: admin,
    body: { name: `${role} key`, role, workspace_id: workspaceId },
  });
  expect(created.status).toBe(201);
  return created.body as { id: string; key: string };
}

async function settleLogs() {
  await gw.app.guardgate.drainLogs();
  await gw.managed.sink.flush();
}

describe("policies on the request path", () => {
  it("denies, in a workspace, a request whose config attaches nothing, and names the policy in hook_results", async () => {
    const saved = await savePolicy(admin, {
      id: "word-limit",
      name: "Word limit",
      workspace_id: gw.keys.workspace_id,
      input_guardrails: [SHORT],
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ id: "word-limit", mode: "enforce", workspace_id: gw.keys.workspace_id });

    const denied = await ask(gw.keys.api_key, LONG_TEXT);
    expect(denied.status).toBe(446);
    expect(denied.body.error.message).toContain("denied by input guardrails (short)");
    const [result] = denied.body.hook_results.before_request_hooks;
    expect(result).toMatchObject({ id: "short", verdict: false, deny: true, policy: { id: "word-limit", name: "Word limit" } });

    const passed = await ask(gw.keys.api_key, "two words");
    expect(passed.status).toBe(200);
    expect(passed.body.hook_results.before_request_hooks).toEqual([
      expect.objectContaining({
        id: "short",
        verdict: true,
        type: "guardrail",
        policy: { id: "word-limit", name: "Word limit" },
      }),
    ]);
    await settleLogs();
    const [latest] = (await gw.call("GET", "/admin/v1/logs?status=446", { key: admin })).body.data;
    const view = await gw.call("GET", `/admin/v1/logs/${latest.id}`, { key: admin });
    expect(view.body.guardrail_results[0]).toMatchObject({ id: "short", policy: { id: "word-limit", name: "Word limit" } });
  });

  it("applies a key-scoped policy to that key and not to another", async () => {
    const other = await newKey("member");
    const key = (await gw.call("GET", "/admin/v1/api-keys", { key: admin })).body.data.find(
      (k: { role: string; workspace_id: string | null; id: string }) => k.role === "member" && k.id !== other.id,
    );
    const saved = await savePolicy(admin, { id: "one-key", input_guardrails: [SHORT], scope: { api_keys: [key.id] } });
    expect(saved.status).toBe(201);
    expect((await ask(gw.keys.api_key, LONG_TEXT)).status).toBe(446);
    expect((await ask(other.key, LONG_TEXT)).status).toBe(200);
  });

  it("applies a model-scoped policy to the models its pattern matches", async () => {
    await savePolicy(admin, { id: "mock-only", input_guardrails: [SHORT], scope: { models: ["@mock/gpt-*"] } });
    const send = (model: string) =>
      gw.call("POST", "/v1/chat/completions", { key: gw.keys.api_key, body: chat(model, LONG_TEXT) });
    expect((await send("@mock/gpt-4o")).status).toBe(446);
    expect((await send("@mock/claude")).status).toBe(200);
  });

  it("runs a guardrail a client config also names once, as the policy has it: the config cannot remove or weaken it", async () => {
    await savePolicy(admin, { id: "word-limit", input_guardrails: [SHORT] });
    // The same id, permissive and not denying: it must not replace the policy's.
    const lenient = { input_guardrails: [{ id: "short", deny: false, "default.wordCount": { maxWords: 100 } }] };
    const denied = await ask(gw.keys.api_key, LONG_TEXT, lenient);
    expect(denied.status).toBe(446);
    expect(denied.body.hook_results.before_request_hooks).toHaveLength(1);
    expect(denied.body.hook_results.before_request_hooks[0].policy.id).toBe("word-limit");

    const passed = await ask(gw.keys.api_key, "hello", {
      input_guardrails: [SHORT, { id: "other", "default.characterCount": { maxCharacters: 100 } }],
    });
    expect(passed.status).toBe(200);
    expect(passed.body.hook_results.before_request_hooks.map((r: { id: string }) => r.id)).toEqual(["short", "other"]);
  });

  it("logs and counts a monitor policy's failing verdict while the request answers 200", async () => {
    const saved = await savePolicy(admin, { id: "trial", name: "Trial", mode: "monitor", input_guardrails: [SHORT] });
    expect(saved.status).toBe(201);
    const answered = await ask(gw.keys.api_key, LONG_TEXT);
    expect(answered.status).toBe(200);
    expect(answered.body.hook_results).toBeUndefined();
    await settleLogs();
    const [latest] = (await gw.call("GET", "/admin/v1/logs", { key: admin })).body.data;
    expect(latest.status).toBe(200);
    const view = await gw.call("GET", `/admin/v1/logs/${latest.id}`, { key: admin });
    expect(view.body.guardrail_results).toEqual([
      expect.objectContaining({
        id: "short",
        verdict: false,
        async: true,
        monitor: true,
        policy: { id: "trial", name: "Trial" },
      }),
    ]);
    const metrics = await gw.call("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(metrics.text).toMatch(
      /guardgate_monitor_verdicts_total\{policy="trial",guardrail="short",side="input",verdict="fail"\} 1/,
    );
  });

  it("runs any guardrail in monitor mode: a client config's failing monitor guardrail is logged while the request answers 200", async () => {
    const answered = await ask(gw.keys.api_key, LONG_TEXT, { input_guardrails: [{ ...SHORT, id: "watch", mode: "monitor" }] });
    expect(answered.status).toBe(200);
    await settleLogs();
    const [latest] = (await gw.call("GET", "/admin/v1/logs", { key: admin })).body.data;
    const view = await gw.call("GET", `/admin/v1/logs/${latest.id}`, { key: admin });
    expect(view.body.hook_results.before_request_hooks).toEqual([
      expect.objectContaining({ id: "watch", verdict: false, async: true, deny: true, monitor: true }),
    ]);
    const refused = await ask(gw.keys.api_key, "hi", { input_guardrails: [{ ...SHORT, mode: "monitor", async: false }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('must not be false with mode "monitor"');
  });

  it("applies to streams, the Anthropic route and the hook backend", async () => {
    await savePolicy(admin, { id: "word-limit", input_guardrails: [SHORT] });
    const stream = client(gw.keys.api_key).chat.completions.create({
      model: "@mock/m",
      stream: true,
      messages: [{ role: "user", content: LONG_TEXT }],
    });
    await expect(stream).rejects.toMatchObject({ status: 446 });
    const messages = await gw.call("POST", "/v1/messages", {
      key: gw.keys.api_key,
      body: { ...chat("@mock/m", LONG_TEXT), max_tokens: 10 },
    });
    expect(messages.status).toBe(446);
    const hooks = await gw.call("POST", "/v1/hooks/evaluate", {
      key: gw.keys.api_key,
      body: {
        side: "input",
        request_type: "chatComplete",
        request: { messages: [{ role: "user", content: LONG_TEXT }] },
        guardrails: [{ id: "chars", "default.characterCount": { maxCharacters: 1000 } }],
      },
    });
    expect(hooks.status).toBe(200);
    expect(hooks.body.status).toBe(446);
    expect(hooks.body.hook_results.before_request_hooks.map((r: { id: string }) => r.id)).toEqual(["short", "chars"]);
  });

  it("applies to /v1/responses, streamed and not, reading the request's tool results", async () => {
    await savePolicy(admin, { id: "word-limit", name: "Word limit", input_guardrails: [SHORT] });
    const responses = client(gw.keys.api_key).responses;
    await expect(responses.create({ model: "@mock/m", input: LONG_TEXT })).rejects.toMatchObject({ status: 446 });
    expect(refusedBody?.hook_results.before_request_hooks[0]).toMatchObject({
      id: "short",
      verdict: false,
      policy: { id: "word-limit", name: "Word limit" },
    });
    await expect(responses.create({ model: "@mock/m", input: LONG_TEXT, stream: true })).rejects.toMatchObject({
      status: 446,
    });
    // A short question whose tool result is long: the tool result is input the policy reads.
    const withToolResult = [
      { role: "user" as const, content: "two words" },
      { type: "function_call" as const, call_id: "call_1", name: "lookup", arguments: "{}" },
      { type: "function_call_output" as const, call_id: "call_1", output: LONG_TEXT },
    ];
    await expect(responses.create({ model: "@mock/m", input: withToolResult })).rejects.toMatchObject({ status: 446 });
    const passed = await responses.create({ model: "@mock/m", input: "two words" });
    expect(passed.status).toBe("completed");
    expect((passed as unknown as Body).hook_results.before_request_hooks).toEqual([
      expect.objectContaining({ id: "short", verdict: true, policy: { id: "word-limit", name: "Word limit" } }),
    ]);
  });

  it("holds the output of /v1/responses to an output policy, streamed and not, whatever the client's stream_mode", async () => {
    const noFalcon = {
      id: "no-falcon",
      deny: true,
      checks: [{ id: "default.contains", parameters: { operator: "none", words: ["falcon"] } }],
    };
    await savePolicy(admin, { id: "no-falcon", output_guardrails: [noFalcon] });
    const responses = client(gw.keys.api_key, { stream_mode: "after" }).responses;
    await expect(responses.create({ model: "@mock/m", input: "the falcon plan" })).rejects.toMatchObject({ status: 446 });
    const texts: string[] = [];
    const streamed = (async () => {
      const stream = responses.stream({ model: "@mock/m", input: "the falcon plan" });
      for await (const event of stream) if (event.type === "response.output_text.delta") texts.push(event.delta);
    })();
    await expect(streamed).rejects.toMatchObject({ status: 446 });
    expect(texts.join("")).not.toContain("falcon");
    const passed = await responses.create({ model: "@mock/m", input: "the eagle plan" });
    expect(passed.output_text).toBe("You said: the eagle plan");
  });

  it("applies to /v1/hooks/webhook as to /v1/hooks/evaluate: the guardrails named in the query cannot leave a policy out", async () => {
    await savePolicy(admin, { id: "word-limit", name: "Word limit", input_guardrails: [SHORT] });
    const saved = await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/guardrails`, {
      key: admin,
      body: { id: "chars", checks: [{ id: "default.characterCount", parameters: { maxCharacters: 1000 } }] },
    });
    expect(saved.status).toBe(201);
    const webhook = (content: string) =>
      gw.call("POST", "/v1/hooks/webhook?guardrails=chars", {
        key: gw.keys.api_key,
        body: { eventType: "beforeRequestHook", request: { json: { messages: [{ role: "user", content }] } } },
      });
    const denied = await webhook(LONG_TEXT);
    expect(denied.status).toBe(200);
    expect(denied.body.verdict).toBe(false);
    expect(denied.body.data.status).toBe(446);
    expect(denied.body.data.hook_results.before_request_hooks).toEqual([
      expect.objectContaining({ id: "short", verdict: false, policy: { id: "word-limit", name: "Word limit" } }),
      expect.objectContaining({ id: "chars", verdict: true }),
    ]);
    const passed = await webhook("two words");
    expect(passed.body.verdict).toBe(true);
  });

  it("takes effect on the next request after a change, and stops when deleted", async () => {
    await savePolicy(admin, { id: "word-limit", input_guardrails: [SHORT] });
    expect((await ask(gw.keys.api_key, LONG_TEXT)).status).toBe(446);
    const patched = await gw.call("PATCH", "/admin/v1/policies/word-limit", { key: admin, body: { mode: "monitor" } });
    expect(patched.status).toBe(200);
    expect((await ask(gw.keys.api_key, LONG_TEXT)).status).toBe(200);
    await gw.call("PATCH", "/admin/v1/policies/word-limit", { key: admin, body: { mode: "enforce" } });
    expect((await ask(gw.keys.api_key, LONG_TEXT)).status).toBe(446);
    expect((await gw.call("DELETE", "/admin/v1/policies/word-limit", { key: admin })).status).toBe(204);
    expect((await ask(gw.keys.api_key, LONG_TEXT)).status).toBe(200);
  });
});

describe("who may manage policies", () => {
  it("lets org admins keep organisation-wide policies, workspace admins their workspace's, and members only read", async () => {
    const member = gw.keys.api_key;
    const wsAdmin = await newKey("workspace_admin");
    const other = await gw.call("POST", "/admin/v1/workspaces", { key: admin, body: { name: "Other" } });
    expect(other.status).toBe(201);

    const refused = await savePolicy(member, { workspace_id: gw.keys.workspace_id, input_guardrails: [SHORT] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("role_forbidden");
    const orgWide = await savePolicy(wsAdmin.key, { input_guardrails: [SHORT] });
    expect(orgWide.status).toBe(403);
    expect(orgWide.body.error.message).toContain("organisation-wide policy");
    const elsewhere = await savePolicy(wsAdmin.key, { workspace_id: other.body.id, input_guardrails: [SHORT] });
    expect(elsewhere.status).toBe(404);
    const scopedOut = await savePolicy(wsAdmin.key, {
      workspace_id: gw.keys.workspace_id,
      scope: { workspaces: [other.body.id] },
      input_guardrails: [SHORT],
    });
    expect(scopedOut.status).toBe(400);

    const own = await savePolicy(wsAdmin.key, { id: "ws-policy", workspace_id: gw.keys.workspace_id, input_guardrails: [SHORT] });
    expect(own.status).toBe(201);
    const org = await savePolicy(admin, { id: "org-policy", output_guardrails: [{ ...SHORT, id: "short-out" }] });
    expect(org.status).toBe(201);

    const listed = await gw.call("GET", "/admin/v1/policies", { key: member });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual(["ws-policy", "org-policy"]);
    expect((await gw.call("PATCH", "/admin/v1/policies/ws-policy", { key: member, body: { name: "x" } })).status).toBe(403);
    expect((await gw.call("DELETE", "/admin/v1/policies/org-policy", { key: wsAdmin.key })).status).toBe(403);
    expect((await gw.call("DELETE", "/admin/v1/policies/ws-policy", { key: wsAdmin.key })).status).toBe(204);
  });

  it("hides from a workspace's keys an organisation policy scoped to another workspace, with its guardrails' parameters", async () => {
    const other = await gw.call("POST", "/admin/v1/workspaces", { key: admin, body: { name: "Other" } });
    expect(other.status).toBe(201);
    const secretList = { id: "secret-words", deny: true, "default.contains": { operator: "none", words: ["project-falcon"] } };
    const elsewhere = await savePolicy(admin, {
      id: "other-only",
      scope: { workspaces: [other.body.id] },
      output_guardrails: [secretList],
    });
    expect(elsewhere.status).toBe(201);
    const here = await savePolicy(admin, {
      id: "here-too",
      scope: { workspaces: [gw.keys.workspace_id] },
      input_guardrails: [SHORT],
    });
    expect(here.status).toBe(201);
    const wsAdmin = await newKey("workspace_admin");
    for (const key of [gw.keys.api_key, wsAdmin.key]) {
      const listed = await gw.call("GET", "/admin/v1/policies", { key });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual(["here-too"]);
      expect(JSON.stringify(listed.body)).not.toContain("project-falcon");
      const read = await gw.call("GET", "/admin/v1/policies/other-only", { key });
      expect(read.status).toBe(404);
      expect(read.text).not.toContain("project-falcon");
    }
    const byAdmin = await gw.call("GET", "/admin/v1/policies/other-only", { key: admin });
    expect(byAdmin.status).toBe(200);
  });

  it("refuses what cannot run: unknown checks, a guardrail for the wrong side, plan-gated checks, unknown saved guardrails", async () => {
    const unknownCheck = await savePolicy(admin, { input_guardrails: [{ id: "g", checks: [{ id: "default.nope" }] }] });
    expect(unknownCheck.status).toBe(400);
    expect(unknownCheck.body.error.message).toContain("input_guardrails[0]");
    const wrongSide = await savePolicy(admin, {
      output_guardrails: [{ id: "g", side: "input", checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] }],
    });
    expect(wrongSide.status).toBe(400);
    expect(wrongSide.body.error.message).toContain("output_guardrails[0]");
    await gw.managed.store.organizations.update(gw.keys.organization_id, { plan: "developer" }, new Date().toISOString());
    const gated = await savePolicy(admin, { input_guardrails: [{ id: "g", checks: [{ id: "pro.always" }] }] });
    expect(gated.status).toBe(403);
    expect(gated.body.error.code).toBe("plan_forbids_check");
    const unknownSaved = await savePolicy(admin, {
      workspace_id: gw.keys.workspace_id,
      input_guardrails: ["nothing-here"],
    });
    expect(unknownSaved.status).toBe(404);
    const orgBare = await savePolicy(admin, { input_guardrails: ["nothing-here"] });
    expect(orgBare.status).toBe(400);
    expect(orgBare.body.error.message).toContain("workspace_id/guardrail_id");
    const empty = await savePolicy(admin, { input_guardrails: [] });
    expect(empty.status).toBe(400);
  });

  it("gates a policy's checks by the plan on the request path too: a plan that no longer includes one refuses", async () => {
    const saved = await savePolicy(admin, { id: "pro-policy", input_guardrails: [{ id: "g", checks: [{ id: "pro.always" }] }] });
    expect(saved.status).toBe(201);
    expect((await ask(gw.keys.api_key, "hello")).status).toBe(200);
    await gw.managed.management.organizations.update(OPERATOR, gw.keys.organization_id, { plan: "developer" });
    const refused = await ask(gw.keys.api_key, "hello");
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('policy "pro-policy"');
  });

  it("copies a saved guardrail into the policy, named as workspace/id by an organisation-wide one", async () => {
    const saved = await gw.call("POST", `/admin/v1/workspaces/${gw.keys.workspace_id}/guardrails`, {
      key: admin,
      body: { id: "words", async: false, deny: true, checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] },
    });
    expect(saved.status).toBe(201);
    const policy = await savePolicy(admin, { id: "org", input_guardrails: [`${gw.keys.workspace_id}/words`] });
    expect(policy.status).toBe(201);
    expect(policy.body.input_guardrails[0]).toMatchObject({ id: "words", deny: true, async: false });
    expect((await ask(gw.keys.api_key, LONG_TEXT)).status).toBe(446);
  });
});

describe("a gateway run from a file alone", () => {
  it("refuses a file with policies rather than ignore them", async () => {
    await expect(buildApp({ file: { policies: [{ id: "p", input_guardrails: [SHORT] }] }, logger: false })).rejects.toThrow(
      "policies: policies are kept in the store",
    );
  });
});
