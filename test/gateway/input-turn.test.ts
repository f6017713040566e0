/**
 * The input side reads what the model will read: every message of the last turn (each tool result
 * an agent sends after the assistant's tool calls), every block that carries text (Anthropic
 * `tool_result` and `document` blocks), with a redaction written back in place; and token-id
 * prompts, which no check can read, are refused under an input guardrail or policy rather than
 * passed unchecked.
 */
import { describe, expect, it } from "vitest";
import { gatewayHeaders, useGatewayWithUpstream } from "../support/gateway.js";
import { startManaged } from "../support/managed.js";

const fixture = useGatewayWithUpstream();

const SSN = "123-45-6789";
const DENY_SSN = {
  input_guardrails: [{ id: "no-ssn", deny: true, regexMatch: { rule: "\\d{3}-\\d{2}-\\d{4}", not: true } }],
};
const REDACT_DIGITS = { input_guardrails: [{ id: "redact", checks: [{ id: "test.redactDigits" }], async: false }] };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field, as a client would
type Json = Record<string, any>;

async function post(path: string, body: unknown, config: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${fixture.gateway.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...gatewayHeaders({
        provider: path.endsWith("/messages") ? "anthropic" : "openai",
        custom_host: fixture.upstream.baseUrl,
        ...(config as object),
      }),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const toolTurn = (result: unknown) => ({
  model: "claude-x",
  max_tokens: 50,
  messages: [
    { role: "user", content: "look it up" },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "lookup", input: { q: "x" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: result }] },
  ],
});

describe("Anthropic tool_result and document blocks", () => {
  it("a tool_result holding an SSN as a string is denied before the upstream", async () => {
    const { status } = await post("/v1/messages", toolTurn(`record: ${SSN}`), DENY_SSN);
    expect(status).toBe(446);
    expect(fixture.upstream.requests).toHaveLength(0);
  });

  it("a tool_result holding an SSN in a text block or a text document is denied", async () => {
    for (const content of [
      [{ type: "text", text: `record: ${SSN}` }],
      [{ type: "document", source: { type: "text", media_type: "text/plain", data: `record: ${SSN}` } }],
    ]) {
      const { status } = await post("/v1/messages", toolTurn(content), DENY_SSN);
      expect(status).toBe(446);
    }
    expect(fixture.upstream.requests).toHaveLength(0);
  });

  it("a document block's text is redacted in place", async () => {
    const body = {
      model: "claude-x",
      max_tokens: 50,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "text", media_type: "text/plain", data: "account 4417 closed" } },
            { type: "text", text: "summarise" },
          ],
        },
      ],
    };
    const { status } = await post("/v1/messages", body, REDACT_DIGITS);
    expect(status).toBe(200);
    const sent = fixture.upstream.requests[0]?.body as Json;
    expect(sent.messages[0].content[0]).toEqual({
      type: "document",
      source: { type: "text", media_type: "text/plain", data: "account [NUMBER] closed" },
    });
  });
});

describe("chat tool messages", () => {
  const agentTurn = {
    model: "gpt-x",
    messages: [
      { role: "user", content: "look them up" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "f", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "f", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: `first ${SSN}` },
      { role: "tool", tool_call_id: "b", content: "second" },
    ],
  };

  it("every tool result after the assistant's tool calls is read, not only the last", async () => {
    const { status } = await post("/v1/chat/completions", agentTurn, DENY_SSN);
    expect(status).toBe(446);
    expect(fixture.upstream.requests).toHaveLength(0);
  });

  it("a redaction is written back into the tool message it came from", async () => {
    const { status } = await post("/v1/chat/completions", agentTurn, REDACT_DIGITS);
    expect(status).toBe(200);
    const sent = fixture.upstream.requests[0]?.body as Json;
    expect(sent.messages[2]).toEqual({ role: "tool", tool_call_id: "a", content: "first [NUMBER]-[NUMBER]-[NUMBER]" });
    expect(sent.messages[3]).toEqual({ role: "tool", tool_call_id: "b", content: "second" });
  });
});

describe("token-id input", () => {
  it("a completions prompt of token ids under an input guardrail is a 400 input_not_checkable, the upstream never called", async () => {
    for (const prompt of [
      [1, 2, 3],
      [[1, 2], [3]],
      ["text", [4, 5]],
    ]) {
      const { status, body } = await post("/v1/completions", { model: "m", prompt }, DENY_SSN);
      expect(status).toBe(400);
      expect(body.error.code).toBe("input_not_checkable");
      expect(body.error.message).toContain("token ids");
    }
    expect(fixture.upstream.requests).toHaveLength(0);
  });

  it("embeddings of token ids under an input guardrail are refused; without one they pass", async () => {
    const refused = await post("/v1/embeddings", { model: "m", input: [[7, 8, 9]] }, DENY_SSN);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("input_not_checkable");
    expect(fixture.upstream.requests).toHaveLength(0);
    const passed = await post("/v1/embeddings", { model: "m", input: [[7, 8, 9]] }, {});
    expect(passed.status).toBe(200);
  });

  it("the hook route refuses token ids on the input side too", async () => {
    const response = await fetch(`${fixture.gateway.url}/v1/hooks/evaluate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...gatewayHeaders() },
      body: JSON.stringify({
        side: "input",
        request_type: "complete",
        guardrails: DENY_SSN.input_guardrails,
        request: { prompt: [1, 2, 3] },
      }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).error.code).toBe("input_not_checkable");
  });

  it("an organization policy's input guardrail refuses token ids as a config's does", async () => {
    const gw = await startManaged({
      file: { policies: [{ id: "pii", scope: { models: ["@mock/*"] }, input_guardrails: [DENY_SSN.input_guardrails[0]] }] },
    });
    try {
      const refused = await gw.call("POST", "/v1/completions", {
        key: gw.keys.api_key,
        body: { model: "@mock/m", prompt: [1, 2, 3] },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("input_not_checkable");
      const text = await gw.call("POST", "/v1/completions", {
        key: gw.keys.api_key,
        body: { model: "@mock/m", prompt: "hello" },
      });
      expect(text.status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});
