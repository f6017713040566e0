import { describe, expect, it } from "vitest";
import { providerCall } from "../../../../test/support/provider-call.js";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";
import { ANTHROPIC_CHAT, DEFAULT_MAX_TOKENS } from "./index.js";

const call = (dropParams = false) =>
  providerCall("/v1/chat/completions", { dropParams, headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" } });

async function request(chat: Json, dropParams = false): Promise<Json> {
  const native = await ANTHROPIC_CHAT.request({ model: "m", ...chat }, call(dropParams));
  expect(native.url).toBe("http://provider.test/v1/messages");
  return JSON.parse(native.body) as Json;
}

async function refusal(chat: Json): Promise<string> {
  const error = (await request(chat).catch((e: unknown) => e)) as GatewayError;
  expect(error).toBeInstanceOf(GatewayError);
  return `${error.code}: ${error.message}`;
}

describe("Anthropic chat backend: requests", () => {
  it("sends the provider's headers, not those an OpenAI client forwards for its own provider", async () => {
    const forwarded = providerCall("/v1/chat/completions", {
      headers: { "x-api-key": "k", "anthropic-version": "2023-06-01", "openai-organization": "org-1", "openai-project": "p" },
    });
    const native = await ANTHROPIC_CHAT.request({ model: "m", messages: [] }, forwarded);
    expect(native.headers).toEqual({ "x-api-key": "k", "anthropic-version": "2023-06-01" });
  });

  it("lifts system and developer messages into the system prompt and merges tool results into one user turn", async () => {
    const body = await request({
      messages: [
        { role: "system", content: "A" },
        { role: "user", content: "q" },
        { role: "developer", content: [{ type: "text", text: "B" }] },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: '{"x":1}' } }],
        },
        { role: "tool", tool_call_id: "t1", content: "r1" },
        { role: "user", content: "more" },
      ],
    });
    expect(body).toEqual({
      model: "m",
      max_tokens: DEFAULT_MAX_TOKENS,
      system: "A\nB",
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: { x: 1 } }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "r1" },
            { type: "text", text: "more" },
          ],
        },
      ],
    });
  });

  it.each([
    [{ max_tokens: 5 }, 5],
    [{ max_completion_tokens: 7, max_tokens: 5 }, 7],
  ])("takes max_tokens from %j", async (limits, expected) => {
    expect((await request({ messages: [{ role: "user", content: "q" }], ...limits })).max_tokens).toBe(expected);
  });

  it.each([
    ["auto", false, { type: "auto", disable_parallel_tool_use: true }],
    ["required", undefined, { type: "any" }],
    ["none", false, { type: "none" }],
    [{ type: "function", function: { name: "f" } }, undefined, { type: "tool", name: "f" }],
    [undefined, false, { type: "auto", disable_parallel_tool_use: true }],
  ])("maps tool_choice %j with parallel_tool_calls %j", async (choice, parallel, expected) => {
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object" } } }];
    const body = await request({
      messages: [{ role: "user", content: "q" }],
      tools,
      tool_choice: choice,
      parallel_tool_calls: parallel,
    });
    expect(body.tools).toEqual([{ name: "f", input_schema: { type: "object" } }]);
    expect(body.tool_choice).toEqual(expected);
  });

  it("maps stop, user and sampling", async () => {
    const body = await request({
      messages: [{ role: "user", content: "q" }],
      stop: "END",
      user: "u",
      temperature: 0.5,
      top_p: 0.9,
      top_k: 4,
    });
    expect(body).toMatchObject({ stop_sequences: ["END"], metadata: { user_id: "u" }, temperature: 0.5, top_p: 0.9, top_k: 4 });
  });

  it.each([
    [
      { response_format: { type: "json_schema", json_schema: {} } },
      /^unsupported_parameter: response_format: Anthropic has no JSON mode/,
    ],
    [{ n: 3 }, /^unsupported_parameter: n: /],
    [
      { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] },
      /^unsupported_parameter: messages\[0\]\.content\[0\]: a "input_audio" part/,
    ],
    [
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] }] },
      /^invalid_request: messages\[0\]\.content\[0\]\.image_url\.url/,
    ],
    [
      {
        messages: [{ role: "assistant", tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: "[1]" } }] }],
      },
      /^invalid_request: messages\[0\]\.tool_calls\[0\]\.function\.arguments: must be a JSON object/,
    ],
    [{ messages: [{ role: "function", name: "f", content: "x" }] }, /^invalid_request: messages\[0\]\.role/],
  ])("refuses %j", async (chat, says) => {
    expect(await refusal({ messages: [{ role: "user", content: "q" }], ...chat })).toMatch(says);
  });

  it("drops a JSON response format and extra choices under drop_params", async () => {
    const body = await request(
      { messages: [{ role: "user", content: "q" }], response_format: { type: "json_object" }, n: 2 },
      true,
    );
    expect(body).not.toHaveProperty("response_format");
    expect(body).not.toHaveProperty("n");
  });
});

describe("Anthropic chat backend: answers", () => {
  it("maps blocks, stop reason and usage, the cached tokens among the prompt tokens", () => {
    const completion = ANTHROPIC_CHAT.response(
      {
        id: "msg_1",
        model: "claude",
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "Hi" },
          { type: "tool_use", id: "t", name: "f", input: { a: 1 } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 20, cache_creation_input_tokens: 5 },
      },
      { model: "m" },
    );
    expect(completion).toMatchObject({
      id: "msg_1",
      object: "chat.completion",
      model: "claude",
      choices: [
        {
          message: {
            role: "assistant",
            content: "Hi",
            tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 35, completion_tokens: 3, total_tokens: 38, prompt_tokens_details: { cached_tokens: 20 } },
    });
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["refusal", "content_filter"],
  ])("maps stop reason %s to %s", (stop, finish) => {
    const completion = ANTHROPIC_CHAT.response({ content: [], stop_reason: stop }, {});
    expect((completion.choices as Json[])[0]?.finish_reason).toBe(finish);
  });
});

const ev = (name: string, data: Json) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;

async function chunks(text: string, size = 5): Promise<Json[]> {
  async function* source() {
    for (let i = 0; i < text.length; i += size) yield Buffer.from(text.slice(i, i + size));
  }
  const out: Json[] = [];
  for await (const chunk of ANTHROPIC_CHAT.stream(source(), { model: "m" })) out.push(chunk);
  return out;
}

describe("Anthropic chat backend: streams", () => {
  const stream = [
    ev("message_start", {
      message: { id: "msg_1", model: "claude", usage: { input_tokens: 8, output_tokens: 1, cache_read_input_tokens: 4 } },
    }),
    ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
    ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "hmm" } }),
    ev("content_block_stop", { index: 0 }),
    ev("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
    ev("ping", {}),
    ev("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Héllo" } }),
    ev("content_block_stop", { index: 1 }),
    ev("content_block_start", { index: 2, content_block: { type: "tool_use", id: "t", name: "f", input: {} } }),
    ev("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: '{"a"' } }),
    ev("content_block_delta", { index: 2, delta: { type: "input_json_delta", partial_json: ":1}" } }),
    ev("content_block_stop", { index: 2 }),
    ev("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 6 } }),
    ev("message_stop", {}),
  ].join("");

  it("turns events into chunks, whatever the read size", async () => {
    for (const size of [1, 3, 64, stream.length]) {
      const deltas = (await chunks(stream, size)).map((c) => [
        (c.choices as Json[])[0]?.delta ?? null,
        (c.choices as Json[])[0]?.finish_reason ?? null,
      ]);
      expect(deltas).toEqual([
        [{ role: "assistant", content: "" }, null],
        [{ content: "Héllo" }, null],
        [{ tool_calls: [{ index: 0, id: "t", type: "function", function: { name: "f", arguments: "" } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }, null],
        [{ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }, null],
        [{}, "tool_calls"],
        [null, null],
      ]);
    }
    const last = (await chunks(stream)).at(-1);
    expect(last).toMatchObject({
      id: "msg_1",
      model: "claude",
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 6, prompt_tokens_details: { cached_tokens: 4 } },
    });
  });

  it.each([
    [stream.slice(0, stream.indexOf("event: message_stop")), "upstream_stream_incomplete"],
    [
      ev("message_start", { message: {} }) +
        `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`,
      "upstream_stream_error",
    ],
  ])("fails a broken stream (%#) with %s", async (text, code) => {
    const error = (await chunks(text).catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.code).toBe(code);
  });
});

describe("Anthropic chat backend: errors", () => {
  const body = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } });

  it.each([
    [
      529,
      body("overloaded_error", "Overloaded"),
      {},
      { status: 503, code: "overloaded_error", type: "overloaded_error", message: "Overloaded" },
    ],
    [
      429,
      body("rate_limit_error", "slow"),
      { "retry-after": "9" },
      { status: 429, code: "rate_limit_error", message: "slow", retryAfter: "9" },
    ],
    [
      400,
      body("invalid_request_error", "prompt is too long: 1 > 0"),
      {},
      { status: 400, code: "context_length_exceeded", message: "prompt is too long: 1 > 0" },
    ],
    [
      401,
      body("authentication_error", "invalid x-api-key"),
      {},
      { status: 401, code: "authentication_error", message: "invalid x-api-key" },
    ],
    [
      502,
      "<html>Bad Gateway</html>",
      {},
      { status: 502, code: null, message: "the provider answered 502: <html>Bad Gateway</html>" },
    ],
  ])("maps %i", (status, text, headers, expected) => {
    expect(ANTHROPIC_CHAT.error(status, text, headers)).toEqual(expected);
  });
});

describe("Anthropic chat backend: streaming as it arrives", () => {
  it("yields each chunk before the provider's stream goes on", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* source() {
      yield Buffer.from(ev("message_start", { message: { id: "m", usage: { input_tokens: 1 } } }));
      yield Buffer.from(ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
      yield Buffer.from(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "first" } }));
      await held;
      yield Buffer.from(ev("message_stop", {}));
    }
    const chunks = ANTHROPIC_CHAT.stream(source(), {})[Symbol.asyncIterator]();
    await chunks.next();
    const first = await chunks.next();
    expect((first.value as { choices: Json[] }).choices[0]?.delta).toEqual({ content: "first" });
    release();
    expect((await chunks.next()).value).toMatchObject({ choices: [], usage: { prompt_tokens: 1 } });
    expect((await chunks.next()).done).toBe(true);
  });
});
