/**
 * A held stream against upstreams that behave as real ones do, each case beside its JSON twin: an
 * event over two network reads, several choices interleaving, the legacy `function_call` and
 * content-array deltas, tool arguments with JSON escapes, oddities inside events (tool input in a
 * block's start, deltas after `message_stop`, a key given twice), and the request log keeping only
 * what the client got. The oracle is the plain JSON answer: the same verdict, the same text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";
import { allText, rebuildAnthropicStream, rebuildJson, rebuildOpenAiStream } from "../support/rebuilt-answer.js";
import { startWireUpstream, type WireUpstream } from "../support/wire-upstream.js";

let upstream: WireUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startWireUpstream();
  gateway = await startGateway({
    logBodies: true,
    file: {
      providers: [
        { slug: "up", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-server-held" },
        { slug: "upa", provider: "anthropic", base_url: upstream.baseUrl, api_key: "sk-ant-server-held" },
        { slug: "gem", provider: "google", base_url: `${upstream.server.origin}/v1beta`, api_key: "gemini-key" },
      ],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const SSN = "123-45-6789";
const RULE = "\\d{3}-\\d{2}-\\d{4}";
const DENY = { output_guardrails: [{ id: "no-ssn", deny: true, "default.regexMatch": { rule: RULE, not: true } }] };
const REDACT = { output_guardrails: [{ id: "ssn", "default.regexReplace": { rule: RULE, redactText: "[SSN]" } }] };

const sse = (value: unknown, event?: string) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(value)}\n\n`;
const chunk = (choices: unknown[]) => sse({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices });
const delta = (index: number, d: Record<string, unknown>, finish: string | null = null) =>
  chunk([{ index, delta: d, finish_reason: finish }]);
const DONE = "data: [DONE]\n\n";

/** Posts to the gateway; the answer's status, and its body as JSON or as text. */
async function post(route: string, config: unknown, body: Record<string, unknown>) {
  const response = await fetch(`${gateway.url}${route}`, {
    method: "POST",
    headers: { ...gatewayHeaders(config), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, requestId: response.headers.get("x-gateway-request-id") };
}

const chatBody = (stream: boolean, extra: Record<string, unknown> = {}) => ({
  model: "@up/m",
  messages: [{ role: "user", content: "go" }],
  ...(stream && { stream: true }),
  ...extra,
});

/** A chat answer whose one choice has this message. */
const chatAnswer = (messages: Array<Record<string, unknown>>) => ({
  id: "c",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: messages.map((message, index) => ({ index, message: { role: "assistant", ...message }, finish_reason: "stop" })),
});

/** The JSON twin and the stream of one answer through the gateway: status and what the client rebuilt of each. */
async function both(config: unknown, json: unknown, pieces: string[], extra: Record<string, unknown> = {}, gapMs?: number) {
  upstream.enqueue({ kind: "json", body: json });
  const plain = await post("/v1/chat/completions", config, chatBody(false, extra));
  upstream.enqueue({ kind: "stream", pieces, ...(gapMs !== undefined && { gapMs }) });
  const streamed = await post("/v1/chat/completions", config, chatBody(true, extra));
  return {
    plain: { status: plain.status, rebuilt: plain.status === 200 ? rebuildJson(JSON.parse(plain.text)) : undefined },
    stream: { status: streamed.status, rebuilt: streamed.status === 200 ? rebuildOpenAiStream(streamed.text) : undefined },
    streamText: streamed.text,
    requestId: streamed.requestId,
  };
}

describe("an event over two network reads", () => {
  // About a hundred bytes, written in two halves 20 ms apart.
  const events = (text: string) => [
    delta(0, { role: "assistant", content: "" }),
    delta(0, { content: text }),
    delta(0, {}, "stop"),
    DONE,
  ];
  const halves = (text: string) => {
    const [first, second, ...rest] = events(text);
    const middle = Math.floor((second as string).length / 2);
    return [first as string, (second as string).slice(0, middle), (second as string).slice(middle), ...rest];
  };

  it("answers 200 with the text under a deny policy", async () => {
    const text = "a perfectly ordinary answer of some forty-odd characters";
    const { plain, stream } = await both(DENY, chatAnswer([{ content: text }]), halves(text), {}, 20);
    expect(plain.status).toBe(200);
    expect(stream.status).toBe(200);
    expect(stream.rebuilt?.choices.get(0)?.content).toBe(text);
    expect(stream.rebuilt?.completed).toBe(true);
  });

  it("answers 200 with the redacted text under a redacting policy", async () => {
    const text = `the number on file is ${SSN}, kept for the record`;
    const { stream } = await both(REDACT, chatAnswer([{ content: text }]), halves(text), {}, 20);
    expect(stream.status).toBe(200);
    expect(stream.rebuilt?.choices.get(0)?.content).toBe("the number on file is [SSN], kept for the record");
  });
});

describe("several choices, interleaved", () => {
  it("checks each choice's own text: an SSN split over choice 0's deltas is denied as its JSON twin is", async () => {
    const first: string[] = [];
    const second: string[] = [];
    for (let i = 0; i < 60; i++) {
      first.push(i === 3 ? "123-" : i === 4 ? "45-" : i === 5 ? "6789 " : `w${i} `);
      second.push(`filler${i} `);
    }
    const pieces = [delta(0, { role: "assistant", content: "" }), delta(1, { role: "assistant", content: "" })];
    for (let i = 0; i < 60; i++) pieces.push(delta(0, { content: first[i] }), delta(1, { content: second[i] }));
    pieces.push(delta(0, {}, "stop"), delta(1, {}, "stop"), DONE);
    const json = chatAnswer([{ content: first.join("") }, { content: second.join("") }]);
    const { plain, stream } = await both(DENY, json, pieces, { n: 2 });
    expect(plain.status).toBe(446);
    expect(stream.status === 446 || stream.rebuilt?.error !== undefined).toBe(true);
    if (stream.rebuilt) expect(allText(stream.rebuilt)).not.toContain(SSN);
  });
});

describe("several Gemini candidates (candidateCount), interleaved", () => {
  it("checks each candidate's own text, as the JSON answer of the same candidates", async () => {
    const first = Array.from({ length: 60 }, (_, i) => (i === 3 ? "123-" : i === 4 ? "45-" : i === 5 ? "6789 " : `w${i} `));
    const second = Array.from({ length: 60 }, (_, i) => `filler${i} `);
    const candidate = (index: number, text: string, finishReason?: string) => ({
      index,
      content: { role: "model", parts: [{ text }] },
      ...(finishReason && { finishReason }),
    });
    const pieces: string[] = [];
    for (let i = 0; i < 60; i++) {
      const last = i === 59 ? "STOP" : undefined;
      pieces.push(`data: ${JSON.stringify({ candidates: [candidate(0, first[i] as string, last)] })}\r\n\r\n`);
      pieces.push(`data: ${JSON.stringify({ candidates: [candidate(1, second[i] as string, last)] })}\r\n\r\n`);
    }
    const usageMetadata = { promptTokenCount: 1, candidatesTokenCount: 120, totalTokenCount: 121 };
    const json = { candidates: [candidate(0, first.join(""), "STOP"), candidate(1, second.join(""), "STOP")], usageMetadata };
    upstream.enqueue({ kind: "json", body: json });
    const body = { model: "@gem/gemini-2.0-flash", n: 2, messages: [{ role: "user", content: "go" }] };
    expect((await post("/v1/chat/completions", DENY, body)).status).toBe(446);
    upstream.enqueue({ kind: "stream", pieces });
    const streamed = await post("/v1/chat/completions", DENY, { ...body, stream: true });
    expect(streamed.status === 446 || rebuildOpenAiStream(streamed.text).error !== undefined).toBe(true);
    if (streamed.status === 200) expect(allText(rebuildOpenAiStream(streamed.text))).not.toContain(SSN);
  });
});

describe("delta shapes besides content strings", () => {
  const args = JSON.stringify({ to: "hr", body: `number ${SSN} attached` });
  const argPieces = args.match(/.{1,5}/gs) as string[];

  it("checks streamed legacy function_call arguments as the JSON answer's", async () => {
    const pieces = [
      delta(0, { role: "assistant", content: null, function_call: { name: "send", arguments: "" } }),
      ...argPieces.map((piece) => delta(0, { function_call: { arguments: piece } })),
      delta(0, {}, "function_call"),
      DONE,
    ];
    const json = chatAnswer([{ content: null, function_call: { name: "send", arguments: args } }]);
    const denied = await both(DENY, json, pieces);
    expect(denied.plain.status).toBe(446);
    expect(denied.stream.status).toBe(446);
    const redacted = await both(REDACT, json, pieces);
    const expected = JSON.stringify({ to: "hr", body: "number [SSN] attached" });
    expect(redacted.plain.rebuilt?.choices.get(0)?.legacy).toBe(expected);
    expect(redacted.stream.rebuilt?.choices.get(0)?.legacy).toBe(expected);
  });

  it("checks content sent as an array of parts (Mistral's reasoning models)", async () => {
    const text = `here it is: ${SSN} and more`;
    const pieces = [
      delta(0, { role: "assistant", content: "" }),
      ...(text.match(/.{1,4}/gs) as string[]).map((piece) => delta(0, { content: [{ type: "text", text: piece }] })),
      delta(0, {}, "stop"),
      DONE,
    ];
    const json = chatAnswer([{ content: [{ type: "text", text }] }]);
    const denied = await both(DENY, json, pieces);
    expect(denied.plain.status).toBe(446);
    expect(denied.stream.status).toBe(446);
    const redacted = await both(REDACT, json, pieces);
    expect(redacted.plain.rebuilt?.choices.get(0)?.content).toBe("here it is: [SSN] and more");
    expect(redacted.stream.rebuilt?.choices.get(0)?.content).toBe("here it is: [SSN] and more");
  });
});

describe("tool arguments as the application reads them", () => {
  // The arguments' JSON text escapes the dashes: JSON.parse gives the application the SSN.
  const args = '{"to":"hr","body":"number 123\\u002d45\\u002d6789 attached"}';
  const pieces = [
    delta(0, {
      role: "assistant",
      content: null,
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "send", arguments: "" } }],
    }),
    ...(args.match(/.{1,7}/gs) as string[]).map((piece) =>
      delta(0, { tool_calls: [{ index: 0, function: { arguments: piece } }] }),
    ),
    delta(0, {}, "tool_calls"),
    DONE,
  ];
  const json = chatAnswer([
    { content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "send", arguments: args } }] },
  ]);

  it("denies an SSN written with JSON escapes, streamed and not", async () => {
    const { plain, stream } = await both(DENY, json, pieces);
    expect(plain.status).toBe(446);
    expect(stream.status).toBe(446);
  });

  it("redacts it and writes the redaction back into the arguments' JSON, streamed and not", async () => {
    const { plain, stream } = await both(REDACT, json, pieces);
    const expected = JSON.stringify({ to: "hr", body: "number [SSN] attached" });
    expect(plain.status).toBe(200);
    expect(plain.rebuilt?.choices.get(0)?.tools).toEqual([expected]);
    expect(stream.status).toBe(200);
    expect(stream.rebuilt?.choices.get(0)?.tools).toEqual([expected]);
  });
});

describe("oddities inside events", () => {
  const start = sse(
    {
      type: "message_start",
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        model: "c",
        content: [],
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    },
    "message_start",
  );
  const stop = [
    sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }, "message_delta"),
    sse({ type: "message_stop" }, "message_stop"),
  ];
  const messages = async (config: unknown, pieces: string[]) => {
    upstream.enqueue({ kind: "stream", pieces });
    const body = { model: "@upa/claude", max_tokens: 64, stream: true, messages: [{ role: "user", content: "go" }] };
    const answer = await post("/v1/messages", config, body);
    return { status: answer.status, rebuilt: answer.status === 200 ? rebuildAnthropicStream(answer.text) : undefined };
  };

  it("reads tool input given whole in a tool_use block's start", async () => {
    const answer = await messages(DENY, [
      start,
      sse(
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "t", name: "send", input: { body: SSN } },
        },
        "content_block_start",
      ),
      sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
      ...stop,
    ]);
    expect(answer.status).toBe(446);
  });

  it("never forwards deltas after message_stop", async () => {
    const answer = await messages(DENY, [
      start,
      sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "all fine" } }, "content_block_delta"),
      sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
      ...stop,
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: ` ${SSN}` } }, "content_block_delta"),
    ]);
    expect(answer.status).toBe(200);
    expect(answer.rebuilt?.choices.get(0)?.content).toBe("all fine");
    expect(answer.rebuilt && allText(answer.rebuilt)).not.toContain(SSN);
  });

  it("sends an event with a key given twice as the checks read it", async () => {
    const twice =
      `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${SSN}"},"finish_reason":null}],` +
      `"choices":[{"index":0,"delta":{"content":"fine"},"finish_reason":null}]}\n\n`;
    upstream.enqueue({
      kind: "stream",
      pieces: [delta(0, { role: "assistant", content: "" }), twice, delta(0, {}, "stop"), DONE],
    });
    const answer = await post("/v1/chat/completions", DENY, chatBody(true));
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(SSN);
    expect(rebuildOpenAiStream(answer.text).choices.get(0)?.content).toBe("fine");
  });
});

describe("the request log keeps what the client got", () => {
  const long = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `word${from + i} `);

  it("a denied stream's record holds no denied text; a redacted one's the redacted text", async () => {
    const words = [...long(0, 80), `${SSN} `, ...long(80, 90)];
    const pieces = [
      delta(0, { role: "assistant", content: "" }),
      ...words.map((w) => delta(0, { content: w })),
      delta(0, {}, "stop"),
      DONE,
    ];
    const json = chatAnswer([{ content: words.join("") }]);
    const denied = await both(DENY, json, pieces);
    expect(denied.stream.rebuilt?.error).toBeDefined();
    const deniedRecord = await gateway.logs.waitFor((record) => record.id === denied.requestId);
    expect(JSON.stringify(deniedRecord.response ?? null)).not.toContain(SSN);
    expect(JSON.stringify(deniedRecord.response ?? null)).toContain("word0");
    const redacted = await both(REDACT, json, pieces);
    expect(redacted.stream.rebuilt?.choices.get(0)?.content).toBe(words.join("").replace(SSN, "[SSN]"));
    const redactedRecord = await gateway.logs.waitFor((record) => record.id === redacted.requestId);
    expect(JSON.stringify(redactedRecord.response)).not.toContain(SSN);
    expect(JSON.stringify(redactedRecord.response)).toContain("[SSN]");
  });
});
