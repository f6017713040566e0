import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import type { Json, ProviderCall } from "../../kind.js";
import { providerCall } from "../../../../test/support/provider-call.js";
import { openAiChatBackend } from "./backend.js";

function call(stream: boolean): ProviderCall {
  return providerCall("/v1/messages", { stream, headers: { authorization: "Bearer k" }, provider: { baseUrl: "http://h/v1" } });
}

async function* bytes(text: string, size = 7): AsyncGenerator<Buffer> {
  for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
}

async function collect(source: AsyncIterable<Json>): Promise<Json[]> {
  const out: Json[] = [];
  for await (const item of source) out.push(item);
  return out;
}

describe("openAiChatBackend", () => {
  const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };

  it("sends the chat to baseUrl + /chat/completions, asking a stream for its usage", async () => {
    const backend = openAiChatBackend();
    const plain = await backend.request(chat, call(false));
    expect(plain.url).toBe("http://h/v1/chat/completions");
    expect(plain.headers).toEqual({ authorization: "Bearer k" });
    expect(JSON.parse(plain.body)).toEqual(chat);
    const streamed = JSON.parse((await backend.request(chat, call(true))).body) as Json;
    expect(streamed).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("leaves out the headers an Anthropic client forwards for its own provider", async () => {
    const forwarded = providerCall("/v1/messages", {
      headers: { authorization: "Bearer k", "anthropic-version": "2023-06-01", "anthropic-beta": "x" },
    });
    expect((await openAiChatBackend().request(chat, forwarded)).headers).toEqual({ authorization: "Bearer k" });
  });

  it("goes where its target says", async () => {
    const backend = openAiChatBackend(() => Promise.resolve({ url: "http://azure/x", headers: { "api-key": "a" } }));
    const native = await backend.request(chat, call(false));
    expect([native.url, native.headers]).toEqual(["http://azure/x", { "api-key": "a" }]);
  });

  it("reads a stream's chunks until [DONE], whatever the read size", async () => {
    const text =
      'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n: keep-alive\n\ndata: {"choices":[],"usage":{"prompt_tokens":1}}\n\ndata: [DONE]\n\n';
    const chunks = await collect(openAiChatBackend().stream(bytes(text), chat));
    expect(chunks).toEqual([{ choices: [{ index: 0, delta: { content: "a" } }] }, { choices: [], usage: { prompt_tokens: 1 } }]);
  });

  it.each([
    ['data: {"choices":[]}\n\n', "upstream_stream_incomplete"],
    ['data: {"error":{"message":"overloaded"}}\n\n', "upstream_stream_error"],
    ["data: {not json\n\n", "upstream_invalid_response"],
  ])("fails a stream %j with %s", async (text, code) => {
    const error = await collect(openAiChatBackend().stream(bytes(text), chat)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe(code);
  });

  it("keeps an error's status and code, and a rate limit's retry-after", () => {
    const backend = openAiChatBackend();
    const body = JSON.stringify({
      error: { message: "too long", type: "invalid_request_error", code: "context_length_exceeded" },
    });
    expect(backend.error(400, body, {})).toEqual({ status: 400, code: "context_length_exceeded", message: "too long" });
    const limited = backend.error(
      429,
      JSON.stringify({ error: { message: "slow down", type: "rate_limit_error", code: null } }),
      {
        "retry-after": "7",
      },
    );
    expect(limited).toEqual({ status: 429, code: "rate_limit_error", message: "slow down", retryAfter: "7" });
    expect(backend.error(502, "<html>bad gateway</html>", {}).message).toBe(
      "the provider answered 502: <html>bad gateway</html>",
    );
  });
});
