/**
 * The Vercel AI SDK (`ai` + `@ai-sdk/openai`, whose `responses(model)` calls `/v1/responses`)
 * through guardgate: `streamText` streams a reply passed through to a fake OpenAI Responses server
 * and one translated from the Anthropic contract fake; an output guardrail's deny in the middle of
 * the stream reaches the SDK as an error, with none of the denied text before it.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { AnthropicFake } from "../support/providers/anthropic.js";
import { ResponsesUpstream } from "../support/responses-upstream.js";

const ANTHROPIC_KEY = "sk-ant-fake-provider-secret-9c41e7";

let upstream: ResponsesUpstream;
let claude: AnthropicFake;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new ResponsesUpstream().start();
  claude = await new AnthropicFake(ANTHROPIC_KEY).start();
  gateway = await startGateway({
    file: {
      providers: [{ slug: "claude", provider: "anthropic", base_url: claude.baseUrl, api_key: ANTHROPIC_KEY }],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
  await claude.close();
});

beforeEach(() => {
  upstream.reset();
  claude.reset();
});

/** The SDK's OpenAI provider pointed at the gateway with `config`. */
function provider(config?: Record<string, unknown>) {
  return createOpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-client-own-key",
    headers: { "x-gateway-api-key": API_KEY, ...(config && { "x-gateway-config": JSON.stringify(config) }) },
  });
}

/** Streams `prompt` with streamText and gathers the text deltas and the error parts. */
async function stream(model: Parameters<typeof streamText>[0]["model"], prompt: string) {
  const result = streamText({ model, prompt, maxRetries: 0, onError: () => undefined });
  let text = "";
  const errors: unknown[] = [];
  let finish: string | undefined;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text;
    else if (part.type === "error") errors.push(part.error);
    else if (part.type === "finish") finish = part.finishReason;
  }
  return { text, errors, finish };
}

const passthrough = (config: Record<string, unknown> = {}) =>
  provider({ provider: "openai", custom_host: upstream.baseUrl, ...config }).responses("gpt-test");

describe("the Vercel AI SDK through guardgate", () => {
  it("streams a reply passed through to an OpenAI Responses server", async () => {
    const { text, errors, finish } = await stream(passthrough(), "hello there");
    expect(errors).toEqual([]);
    expect(text).toBe("echo: hello there");
    expect(finish).toBe("stop");
    expect(upstream.requests[0]).toMatchObject({ path: "/v1/responses", body: { model: "gpt-test", stream: true } });
  });

  it("streams a reply translated from the Anthropic fake", async () => {
    claude.enqueue({ kind: "turn", turn: { text: "Bonjour from the other side." } });
    const { text, errors, finish } = await stream(provider().responses("@claude/claude-sonnet-4-5"), "hello");
    expect(errors).toEqual([]);
    expect(text).toBe("Bonjour from the other side.");
    expect(finish).toBe("stop");
    expect(claude.requests).toHaveLength(1);
  });

  it("gets an output guardrail's mid-stream deny as an error, with no denied text", async () => {
    upstream.texts.push(`${"all is well here and now ".repeat(8)}the secret is out`);
    const config = {
      stream_mode: "window",
      stream_window: 20,
      output_guardrails: [{ id: "no-secrets", deny: true, regexMatch: { rule: "secret", not: true } }],
    };
    const { text, errors } = await stream(passthrough(config), "talk");
    expect(text).toContain("all is well");
    expect(text).not.toContain("secret");
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain("no-secrets");
    const record = await gateway.logs.waitFor((r) => r.stream_stop !== undefined);
    expect(record.stream_stop).toMatchObject({ guardrails: ["no-secrets"] });
  });
});
