/**
 * Fail closed on the request path, over a real store: typos in configs are refused with the key
 * they meant, bodies without the text a guardrail reads are refused before any guardrail runs,
 * every attempt's results and every answered request are recorded, bodies are capped and never
 * cost a record, headers are strict, and admin keys on model routes say why they are refused.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";
import { CONFIG_TYPOS } from "../support/config-typos.js";

let gw: ManagedTestGateway;
let key: string;
let admin: string;
let workspace: string;

const denyHello = {
  deny: true,
  checks: [{ id: "default.contains", parameters: { words: ["hello"], operator: "none" } }],
};

beforeAll(async () => {
  gw = await startManaged({ file: { settings: { log_bodies: true, log_body_max_bytes: 1024 } } });
  key = gw.keys.api_key;
  admin = gw.keys.admin_key;
  workspace = gw.keys.workspace_id;
});
afterAll(() => gw.close());

function configHeader(config: unknown): Record<string, string> {
  return { "x-gateway-config": JSON.stringify(config) };
}

/** The admin log view of a request, once its record is written. */
async function logOf(requestId: string) {
  await gw.managed.sink.flush();
  const view = await gw.call("GET", `/admin/v1/logs/${requestId}`, { key: admin });
  expect(view.status).toBe(200);
  return view.body;
}

describe("config typos are refused, not ignored", () => {
  it.each(CONFIG_TYPOS)("a header config with %s is a 400 naming %s", async (typo, meant) => {
    const value = typo === "overide_params" ? { model: "x" } : [denyHello];
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "hello"),
      headers: configHeader({ [typo]: value }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(`${typo}: unknown key; did you mean ${meant}?`);
  });

  it("a saved config with a typo is refused at save, at every level", async () => {
    const at = `/admin/v1/workspaces/${workspace}/configs`;
    const root = await gw.call("POST", at, { key: admin, body: { id: "typo", config: { input_guardrail: [denyHello] } } });
    expect(root.status).toBe(400);
    expect(root.body.error.message).toContain("input_guardrail: unknown key; did you mean input_guardrails?");
    const target = await gw.call("POST", at, {
      key: admin,
      body: {
        id: "typo2",
        config: {
          strategy: { mode: "fallback" },
          targets: [{ provider: "@mock", input_guardrails: [{ ...denyHello, denny: true }] }],
        },
      },
    });
    expect(target.status).toBe(400);
    expect(target.body.error.message).toContain("targets[0].input_guardrails[0].denny: unknown key; did you mean deny?");
  });

  it("a config file with a typo stops the start, naming the path", async () => {
    await expect(startManaged({ file: { configs: [{ id: "c", config: { output_guardrail: [denyHello] } }] } })).rejects.toThrow(
      "output_guardrail: unknown key; did you mean output_guardrails?",
    );
  });

  it("a peer gateway key guardgate does not act on is accepted and said so in the log", async () => {
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", "hi"),
      headers: configHeader({ forward_headers: ["x-trace"], input_guardrails: [denyHello] }),
    });
    expect(answer.status).toBe(200);
    expect(gw.logLines.some((line) => line.includes("forward_headers: accepted but not acted on"))).toBe(true);
  });
});

describe("bodies without the text guardrails read", () => {
  it.each([
    ["/v1/chat/completions", { model: "@mock/m", messages: "hi" }, "messages"],
    ["/v1/chat/completions", { model: "@mock/m" }, "messages: is required"],
    ["/v1/chat/completions", { model: "@mock/m", messages: [{ role: "user" }] }, "messages[0].content"],
    ["/v1/messages", { model: "@mock/m", max_tokens: 5, messages: [] }, "messages"],
    ["/v1/completions", { model: "@mock/m", prompt: 5 }, "prompt"],
    ["/v1/embeddings", { model: "@mock/m" }, "input: is required"],
  ])("%s %j is a 400 naming the field, logged, upstream never called", async (route, body, field) => {
    const answer = await gw.call("POST", route, { key, body, headers: configHeader({ input_guardrails: [denyHello] }) });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(field);
    await gw.managed.sink.flush();
    const page = await gw.call("GET", `/admin/v1/logs?workspace_id=${workspace}&status=400`, { key: admin });
    expect(page.body.data.some((entry: { route: string }) => entry.route === route)).toBe(true);
  });

  it("an output guardrail on an embedding says it had no text to read", async () => {
    const answer = await gw.call("POST", "/v1/embeddings", {
      key,
      body: { model: "@mock/m", input: "hello" },
      headers: configHeader({ output_guardrails: [{ checks: denyHello.checks }] }),
    });
    expect(answer.status).toBe(200);
    const check = answer.body.hook_results.after_request_hooks[0].checks[0];
    expect(check.error).toMatchObject({ name: "NoTextError" });
    expect(check.verdict).toBe(false);
  });

  it.each([
    [
      "an OpenAI answer with only tool calls",
      "/v1/chat/completions",
      chat("@mock/m", "hello there"),
      {
        id: "chatcmpl-tools",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "call_1", type: "function", function: { name: "greet", arguments: '{"word":"hello"}' } }],
            },
            finish_reason: "tool_calls",
          },
        ],
      },
    ],
    [
      "an Anthropic message with only tool use",
      "/v1/messages",
      { model: "@mock/m", max_tokens: 5, messages: [{ role: "user", content: "hello there" }] },
      {
        id: "msg_tools",
        type: "message",
        role: "assistant",
        model: "m",
        content: [{ type: "tool_use", id: "toolu_1", name: "greet", input: { word: "hello" } }],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 5 },
      },
    ],
  ])(
    "an output guardrail on %s reads the tool arguments; one that opted out says it had no text to read",
    async (_name, route, body, mockResponse) => {
      const read = await gw.call("POST", route, {
        key,
        body: { ...body, mock_response: mockResponse },
        headers: configHeader({ output_guardrails: [denyHello] }),
      });
      expect(read.status).toBe(446);
      expect(read.body.hook_results.after_request_hooks[0].checks[0]).toMatchObject({ verdict: false });
      const answer = await gw.call("POST", route, {
        key,
        body: { ...body, mock_response: mockResponse },
        headers: configHeader({ output_guardrails: [{ checks: denyHello.checks, tool_arguments: false }] }),
      });
      expect(answer.status).toBe(200);
      const check = answer.body.hook_results.after_request_hooks[0].checks[0];
      expect(check.error).toMatchObject({ name: "NoTextError" });
      expect(check.error.message).toContain("only tool calls");
      expect(check.verdict).toBe(false);
    },
  );

  it("a body nested past the limit is a 400 at intake, logged", async () => {
    const nested = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
    const body = JSON.stringify(chat("@mock/m")).replace(/}$/, `,"extra":${nested}}`);
    const answer = await gw.call("POST", "/v1/chat/completions", { key, body, headers: { "content-type": "application/json" } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("body_too_deep");
    await gw.managed.sink.flush();
    const page = await gw.call("GET", `/admin/v1/logs?workspace_id=${workspace}&status=400`, { key: admin });
    expect(page.body.data.some((entry: { error_code: string }) => entry.error_code === "body_too_deep")).toBe(true);
  });
});

describe("records", () => {
  it("keeps every attempt's guardrail results after a fallback", async () => {
    const config = {
      strategy: { mode: "fallback", on_status_codes: [446] },
      output_guardrails: [{ id: "no-hello-out", ...denyHello }],
      targets: [
        { provider: "@mock", mock_response: "hello from the first" },
        { provider: "@mock", mock_response: "fine from the second" },
      ],
    };
    const answer = await gw.call("POST", "/v1/chat/completions", { key, body: chat("m", "hi"), headers: configHeader(config) });
    expect(answer.status).toBe(200);
    const view = await logOf(answer.headers["x-gateway-request-id"] as string);
    expect(view.attempts).toHaveLength(2);
    expect(view.attempts[0].status).toBe(446);
    expect(view.attempts[0].hook_results.after_request_hooks[0].verdict).toBe(false);
    expect(view.attempts[1].hook_results.after_request_hooks[0].verdict).toBe(true);
    // The record's own results stay those of the final attempt.
    expect(view.hook_results.after_request_hooks[0].verdict).toBe(true);
  });

  it("caps logged bodies and says so", async () => {
    const answer = await gw.call("POST", "/v1/chat/completions", { key, body: chat("@mock/m", "x".repeat(50_000)) });
    expect(answer.status).toBe(200);
    const view = await logOf(answer.headers["x-gateway-request-id"] as string);
    expect(typeof view.request).toBe("string");
    expect(Buffer.byteLength(view.request)).toBeLessThanOrEqual(1024);
    expect(view.body_notes.request).toMatch(/^truncated: \d+ bytes of JSON, the first 1024 kept/);
  });

  it("keeps a record whose check data cannot be serialised, and says why", async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m", deep),
      headers: configHeader({
        input_guardrails: [{ deny: true, checks: [{ id: "default.jsonSchema", parameters: { schema: { type: "object" } } }] }],
      }),
    });
    expect(answer.status).toBeLessThan(500);
    const view = await logOf(answer.headers["x-gateway-request-id"] as string);
    expect(view.id).toBe(answer.headers["x-gateway-request-id"]);
  });

  it("creates the store file and its WAL for the gateway's user only", () => {
    for (const name of ["guardgate.db", "guardgate.db-wal"]) {
      expect(statSync(path.join(gw.dir, name)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(gw.dir).mode & 0o777).toBe(0o700);
  });
});

describe("headers and keys", () => {
  it.each([
    ["true", 200],
    ["FALSE", 200],
    ["False", 200],
    ["no", 400],
    ["yes", 400],
    ["0", 400],
  ])("x-gateway-strict-compliance: %s answers %i", async (value, status) => {
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key,
      body: chat("@mock/m"),
      headers: { "x-gateway-strict-compliance": value },
    });
    expect(answer.status).toBe(status);
    if (status === 400) expect(answer.body.error.message).toContain("x-gateway-strict-compliance: must be true or false");
  });

  it("an organization admin key on a model route says admin keys cannot call models", async () => {
    const answer = await gw.call("POST", "/v1/chat/completions", { key: admin, body: chat("@mock/m") });
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toContain("organization admin key");
    expect(answer.body.error.message).toContain("cannot call models");
  });
});
