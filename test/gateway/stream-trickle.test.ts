/**
 * An upstream that trickles bytes without completing an event never goes silent, so
 * `request_timeout` never fires; `stream_event_timeout` bounds the wait for each complete event.
 * The stream is cut off with the error event the SDKs raise (pass-through), or fails before its
 * first byte (held), with `upstream_stream_stalled`; a stream whose events each complete in time
 * runs to its end however long it runs. Real sockets both ways; short limits, no wall-clock asserts.
 */
import type { ServerResponse } from "node:http";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, headerJson, startGateway, type TestGateway } from "../support/gateway.js";
import { type LocalServer, startServer } from "../support/http-server.js";

const EVENT_TIMEOUT_MS = 300;

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `text` a few bytes at a time, `gapMs` apart, until done or the gateway hangs up. */
async function drip(res: ServerResponse, text: string, bytes: number, gapMs: number): Promise<boolean> {
  for (let at = 0; at < text.length; at += bytes) {
    if (res.destroyed || res.writableEnded) return false;
    res.write(text.slice(at, at + bytes));
    await sleep(gapMs);
  }
  return true;
}

let upstream: LocalServer;
let gateway: TestGateway;
/** Whether the trickling upstream saw its connection closed by the gateway. */
let hungUp: Promise<void>;

beforeAll(async () => {
  let hangUp: () => void = () => undefined;
  hungUp = new Promise((resolve) => (hangUp = resolve));
  upstream = await startServer(async (request, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (request.url?.includes("trickle")) {
      res.on("close", hangUp);
      res.write(chunk({ role: "assistant", content: "" }));
      // One event that never ends: a byte every 20 ms, never silent for request_timeout.
      await drip(res, chunk({ content: "x".repeat(10_000) }), 1, 20);
      return;
    }
    // Eight events, each dripped in over about 80 ms: the stream outlasts the limit, no event does.
    for (let i = 0; i < 8; i++) await drip(res, chunk({ content: `word${i} ` }), 30, 20);
    res.end(`${chunk({}, "stop")}data: [DONE]\n\n`);
  });
  gateway = await startGateway({ file: { settings: { stream_event_timeout: EVENT_TIMEOUT_MS } } });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

function client(path: string, config: Record<string, unknown> = {}): OpenAI {
  return new OpenAI({
    apiKey: "unused",
    baseURL: `${gateway.url}/v1`,
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      "x-gateway-config": headerJson({ provider: "openai", custom_host: `${upstream.origin}/${path}/v1`, ...config }),
    },
  });
}

async function streamed(openai: OpenAI): Promise<{ text: string; error?: unknown }> {
  let text = "";
  try {
    const stream = await openai.chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "go" }],
    });
    for await (const part of stream) text += part.choices[0]?.delta.content ?? "";
  } catch (error) {
    return { text, error };
  }
  return { text };
}

describe("an upstream that trickles without completing an event", () => {
  it("is cut off on a pass-through stream with the error event the SDK raises", async () => {
    const { error } = await streamed(client("trickle"));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/completed no stream event within 300 ms/);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_stream_stalled");
    await hungUp;
  });

  it("fails a held stream before its first byte", async () => {
    const held = { output_guardrails: [{ deny: true, stream_mode: "window", regexMatch: { rule: "forbidden", not: true } }] };
    const { error } = await streamed(client("trickle", held));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_stream_stalled");
  });

  it("leaves a stream alone whose events each complete in time, however long it runs", async () => {
    const { text, error } = await streamed(client("slow"));
    expect(error).toBeUndefined();
    expect(text).toBe(Array.from({ length: 8 }, (_, i) => `word${i} `).join(""));
  });
});
