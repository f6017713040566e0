/**
 * A stream that ends without its terminal event (`[DONE]`, `message_stop`), or with an event cut
 * in half, is not a complete answer: the client gets the error event its SDK raises (or a 502
 * when nothing had been sent), never the half event, and the request log records the error.
 * Through the official `openai` and `@anthropic-ai/sdk` clients, on every streamed route, with the
 * stream passed through and held for output guardrails.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { streamEvents } from "../support/fake-upstream.js";
import { API_KEY, useGatewayWithUpstream } from "../support/gateway.js";

const fixture = useGatewayWithUpstream();

const TEXT = "one two three four five six seven eight";

/** How the upstream's stream is cut short. */
const ENDINGS = {
  "without its terminal event": (events: string[]) => events.slice(0, -1),
  "with its last event cut in half": (events: string[]) => {
    const last = events.at(-2) as string;
    return [...events.slice(0, -2), last.slice(0, Math.floor(last.length / 2))];
  },
};

/** Output guardrails that pass: none (the stream passes through), or one holding the stream. */
const MODES = {
  "passed through": {},
  "held in window mode": { stream_window: 8, output_guardrails: [{ wordCount: { minWords: 1 }, stream_mode: "window" }] },
  "held in buffer mode": { output_guardrails: [{ wordCount: { minWords: 1 }, stream_mode: "buffer" }] },
};

function config(mode: Record<string, unknown>): string {
  return JSON.stringify({ provider: "openai", custom_host: fixture.upstream.baseUrl, ...mode });
}

function openai(mode: Record<string, unknown>): OpenAI {
  return new OpenAI({
    baseURL: `${fixture.gateway.url}/v1`,
    apiKey: "sk-client",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY, "x-gateway-config": config(mode) },
  });
}

function anthropic(mode: Record<string, unknown>): Anthropic {
  return new Anthropic({
    baseURL: fixture.gateway.url,
    apiKey: "sk-ant-client",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      "x-gateway-config": JSON.stringify({ provider: "anthropic", custom_host: fixture.upstream.baseUrl, ...mode }),
    },
  });
}

/** Consumes a stream through its SDK; resolves to the text read and the error raised, if any. */
async function consume(read: () => Promise<AsyncIterable<unknown>>, textOf: (event: unknown) => string) {
  let text = "";
  try {
    for await (const event of await read()) text += textOf(event);
    return { text, error: undefined };
  } catch (error) {
    return { text, error: error as Error & { status?: number; error?: unknown } };
  }
}

const ROUTES = {
  "/v1/chat/completions": (mode: Record<string, unknown>) =>
    consume(
      () => openai(mode).chat.completions.create({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
      (event) => (event as OpenAI.ChatCompletionChunk).choices[0]?.delta.content ?? "",
    ),
  "/v1/completions": (mode: Record<string, unknown>) =>
    consume(
      () => openai(mode).completions.create({ model: "m", stream: true, prompt: "go" }),
      (event) => (event as OpenAI.Completion).choices[0]?.text ?? "",
    ),
  "/v1/messages": (mode: Record<string, unknown>) =>
    consume(
      () =>
        anthropic(mode).messages.create({
          model: "m",
          max_tokens: 64,
          stream: true,
          messages: [{ role: "user", content: "go" }],
        }),
      (event) => {
        const e = event as Anthropic.RawMessageStreamEvent;
        return e.type === "content_block_delta" && e.delta.type === "text_delta" ? e.delta.text : "";
      },
    ),
};

describe.each(Object.entries(ROUTES))("a stream on %s", (route, read) => {
  describe.each(Object.entries(MODES))("%s", (_modeName, mode) => {
    it.each(Object.entries(ENDINGS))("that ends %s raises an error in the SDK and is logged as one", async (_name, cut) => {
      const events = cut(streamEvents(route, { model: "m" }, TEXT));
      fixture.upstream.enqueue({ kind: "events", events });
      const seen = new Set(fixture.gateway.logs.list().map((r) => r.id));
      const { text, error } = await read(mode);
      expect(error).toBeDefined();
      // Nothing of the half event, nor anything past what the upstream completed.
      expect(TEXT.startsWith(text)).toBe(true);
      const record = await fixture.gateway.logs.waitFor((r) => !seen.has(r.id) && r.route === route);
      expect(record.error?.code).toBe("upstream_stream_incomplete");
    });
  });

  it("that ends with its terminal event reads whole, with no error logged", async () => {
    fixture.upstream.enqueue({ kind: "events", events: streamEvents(route, { model: "m" }, TEXT) });
    const seen = new Set(fixture.gateway.logs.list().map((r) => r.id));
    const { text, error } = await read(MODES["held in window mode"]);
    expect(error).toBeUndefined();
    expect(text).toBe(TEXT);
    const record = await fixture.gateway.logs.waitFor((r) => !seen.has(r.id) && r.route === route);
    expect(record.error).toBeUndefined();
  });
});

describe("on the wire", () => {
  it("never forwards the half event, and ends with the error event instead of [DONE]", async () => {
    const half = 'data: {"id":"chatcmpl-half","choices":[{"index":0,"delta":{"content":"cut';
    const events = [...streamEvents("/v1/chat/completions", { model: "m" }, TEXT).slice(0, -1), half];
    fixture.upstream.enqueue({ kind: "events", events });
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": API_KEY, "x-gateway-config": config({}) },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    const body = await response.text();
    expect(body).not.toContain("chatcmpl-half");
    expect(body).not.toContain("[DONE]");
    const last = body.trim().split("\n\n").at(-1) as string;
    expect(JSON.parse(last.replace(/^data: /, "")).error.code).toBe("upstream_stream_incomplete");
  });
});
