import fc from "fast-check";
import { Stream } from "openai/core/streaming";
import { accumulateResponse } from "openai/lib/responses/ResponseAccumulator";
import type { Response as OpenAiResponse, ResponseStreamEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { cut, cuttings, PROPERTY_RUNS } from "../../../test/support/fragments.js";
import { providerCall } from "../../../test/support/provider-call.js";
import { GatewayError } from "../../errors.js";
import type { Json } from "../kind.js";
import { responsesCodec } from "./responses.js";

const call = (dropParams = false) => providerCall("/v1/responses", { dropParams });
const base = { model: "m" };

function refusal(body: Json, dropParams = false): string {
  try {
    responsesCodec.toChat({ ...base, ...body }, call(dropParams));
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return `${(error as GatewayError).code}: ${(error as GatewayError).message}`;
  }
  return "accepted";
}

describe("responsesCodec.toChat", () => {
  it.each([
    [
      "a string input after the instructions",
      { instructions: "S", input: "hi" },
      [
        { role: "system", content: "S" },
        { role: "user", content: "hi" },
      ],
    ],
    [
      "message items with text and image parts, a developer message as system",
      {
        input: [
          { role: "developer", content: "rules" },
          {
            type: "message",
            role: "user",
            content: [
              { type: "input_text", text: "what is" },
              { type: "input_image", image_url: "https://x.test/a.png", detail: "low" },
            ],
          },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "a cat", annotations: [] }] },
        ],
      },
      [
        { role: "system", content: "rules" },
        {
          role: "user",
          content: [
            { type: "text", text: "what is" },
            { type: "image_url", image_url: { url: "https://x.test/a.png", detail: "low" } },
          ],
        },
        { role: "assistant", content: "a cat" },
      ],
    ],
    [
      "a turn's function calls as one assistant message, their outputs as tool messages",
      {
        input: [
          { role: "user", content: "weather?" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "looking" }] },
          { type: "function_call", call_id: "c1", name: "w", arguments: '{"city":"Paris"}' },
          { type: "function_call", call_id: "c2", name: "w", arguments: '{"city":"Rome"}' },
          { type: "function_call_output", call_id: "c1", output: "sun" },
          { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "rain" }] },
        ],
      },
      [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: "looking",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "w", arguments: '{"city":"Paris"}' } },
            { id: "c2", type: "function", function: { name: "w", arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "sun" },
        { role: "tool", tool_call_id: "c2", content: "rain" },
      ],
    ],
  ])("maps %s", (_name, body, messages) => {
    expect(responsesCodec.toChat({ ...base, ...body }, call()).messages).toEqual(messages);
  });

  it("maps tools, tool_choice, text.format, max_output_tokens, reasoning effort and the user", () => {
    const chat = responsesCodec.toChat(
      {
        ...base,
        input: "x",
        tools: [{ type: "function", name: "f", description: "d", parameters: { type: "object" }, strict: true }],
        tool_choice: { type: "function", name: "f" },
        parallel_tool_calls: false,
        text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true } },
        max_output_tokens: 50,
        reasoning: { effort: "low" },
        metadata: { k: "v" },
        safety_identifier: "u1",
        store: true,
        previous_response_id: "resp_1",
        temperature: 0.2,
      },
      call(),
    );
    expect(chat).toEqual({
      model: "m",
      messages: [{ role: "user", content: "x" }],
      tools: [{ type: "function", function: { name: "f", description: "d", parameters: { type: "object" }, strict: true } }],
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" }, strict: true } },
      max_tokens: 50,
      reasoning_effort: "low",
      metadata: { k: "v" },
      user: "u1",
      temperature: 0.2,
    });
  });

  it.each([
    ["auto", "auto"],
    ["required", "required"],
    ["none", "none"],
  ])("passes tool_choice %s", (choice, expected) => {
    expect(responsesCodec.toChat({ ...base, input: "x", tool_choice: choice }, call()).tool_choice).toBe(expected);
  });

  it("keeps a field it has no mapping for under its name, for the adapter to refuse or drop", () => {
    expect(responsesCodec.toChat({ ...base, input: "x", top_logprobs: 2, text: { verbosity: "low" } }, call())).toMatchObject({
      top_logprobs: 2,
      verbosity: "low",
    });
  });

  it.each([
    [{ tools: [{ type: "web_search" }] }, /^unsupported_parameter: tools\[0\]: the built-in "web_search" tool/],
    [{ input: [{ type: "reasoning", id: "rs_1", summary: [] }] }, /^unsupported_parameter: input\[0\]: a reasoning item/],
    [{ input: [{ type: "item_reference", id: "msg_1" }] }, /^unsupported_parameter: input\[0\]: a "item_reference" item/],
    [
      { input: [{ role: "user", content: [{ type: "input_file", file_id: "f" }] }] },
      /^unsupported_parameter: input\[0\]\.content\[0\]: a "input_file" part/,
    ],
    [
      { input: [{ role: "user", content: [{ type: "input_image", file_id: "f" }] }] },
      /^unsupported_parameter: input\[0\]\.content\[0\]: an image given by file_id/,
    ],
    [
      { input: [{ type: "function_call_output", call_id: "c", output: [{ type: "input_image", image_url: "u" }] }] },
      /^unsupported_parameter: input\[0\]\.output\[0\]: a tool message/,
    ],
    [{ tool_choice: { type: "web_search_preview" } }, /^unsupported_parameter: tool_choice: "web_search_preview"/],
    [{ reasoning: { summary: "auto" } }, /^unsupported_parameter: reasoning\.summary/],
    [{ truncation: "auto" }, /^unsupported_parameter: truncation/],
    [{ background: true }, /^unsupported_parameter: background/],
    [{ input: 3 }, /^invalid_request: input: must be a string or an array/],
    [{ input: [{ role: "tool", content: "x" }] }, /^invalid_request: input\[0\]\.role/],
    [{ input: [{ type: "function_call", name: "f" }] }, /^invalid_request: input\[0\]: a function_call item needs a call_id/],
    [{ text: { format: { type: "grammar" } } }, /^invalid_request: text\.format\.type/],
    [
      { input: [{ role: "assistant", content: [{ type: "input_image", image_url: "u" }] }] },
      /^invalid_request: input\[0\]\.content\[0\]: a assistant message holds text only/,
    ],
  ])("refuses what a provider reached through chat cannot take: %j", (body, says) => {
    expect(refusal(body)).toMatch(says);
  });

  it("drops what it cannot send under drop_params", () => {
    const body = {
      ...base,
      input: [
        { type: "reasoning", id: "rs", summary: [] },
        {
          role: "user",
          content: [
            { type: "input_file", file_id: "f" },
            { type: "input_text", text: "hi" },
          ],
        },
      ],
      tools: [{ type: "web_search" }],
    };
    expect(refusal(body, true)).toBe("accepted");
    const chat = responsesCodec.toChat(body, call(true));
    expect(chat.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(chat).not.toHaveProperty("tools");
  });
});

describe("responsesCodec.fromChat", () => {
  it("answers with a message item, function_call items with their call ids, and Responses usage", () => {
    const response = responsesCodec.fromChat(
      {
        id: "c1",
        model: "claude",
        created: 7,
        choices: [
          {
            message: { content: "Hi", tool_calls: [{ id: "call_1", function: { name: "f", arguments: '{"a":1}' } }] },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14, prompt_tokens_details: { cached_tokens: 3 } },
      },
      { model: "asked", instructions: "S", store: false },
    );
    expect(response).toMatchObject({
      object: "response",
      created_at: 7,
      status: "completed",
      incomplete_details: null,
      model: "claude",
      instructions: "S",
      store: false,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Hi", annotations: [] }],
        },
        { type: "function_call", call_id: "call_1", name: "f", arguments: '{"a":1}', status: "completed" },
      ],
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 3 }, output_tokens: 4, total_tokens: 14 },
    });
    expect(response.id).toMatch(/^resp_/);
    expect((response.output as Json[])[0]?.id).toMatch(/^msg_/);
    expect((response.output as Json[])[1]?.id).toMatch(/^fc_/);
  });

  it.each([
    ["stop", "completed", null],
    ["length", "incomplete", { reason: "max_output_tokens" }],
    ["content_filter", "incomplete", { reason: "content_filter" }],
  ])("ends a finish by %s as %s", (finish, status, details) => {
    const response = responsesCodec.fromChat({ choices: [{ message: { content: "x" }, finish_reason: finish }] }, base);
    expect(response).toMatchObject({ status, incomplete_details: details });
  });
});

async function* source(chunks: Json[]): AsyncGenerator<Json> {
  yield* chunks;
}

async function written(chunks: Json[], body: Json = base): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of responsesCodec.streamFromChat(source(chunks), body)) parts.push(part);
  return Buffer.concat(parts);
}

function eventsOf(bytes: Buffer): Json[] {
  return bytes
    .toString()
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => {
      const name = /^event: (.*)$/m.exec(frame)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "{}") as Json;
      expect(data.type).toBe(name);
      return data;
    });
}

/** The response the openai SDK builds of the bytes, read in the given pieces: its SSE parser, then its accumulator. */
async function parsed(pieces: Uint8Array[]): Promise<OpenAiResponse> {
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
  const stream = Stream.fromSSEResponse<ResponseStreamEvent>(new Response(readable), new AbortController());
  let snapshot: OpenAiResponse | undefined;
  let final: OpenAiResponse | undefined;
  for await (const event of stream) {
    snapshot = accumulateResponse(event, snapshot);
    if (event.type === "response.completed" || event.type === "response.incomplete") final = snapshot;
  }
  if (!final) throw new Error("the stream ended without response.completed or response.incomplete");
  return final;
}

const delta = (value: Json, finish: string | null = null): Json => ({
  id: "c1",
  model: "m",
  choices: [{ index: 0, delta: value, finish_reason: finish }],
});

describe("responsesCodec.streamFromChat", () => {
  it("writes the typed events in order, numbered, text then tool calls, the usage in the last", async () => {
    const events = eventsOf(
      await written([
        delta({ role: "assistant", content: "" }),
        delta({ content: "Hi " }),
        delta({ content: "there" }),
        delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
        delta({}, "tool_calls"),
        { id: "c1", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } },
      ]),
    );
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[6]).toMatchObject({ output_index: 0, content_index: 0, text: "Hi there" });
    expect(events[9]).toMatchObject({ output_index: 1, item: { type: "function_call", call_id: "call_1", name: "f" } });
    expect(events[12]).toMatchObject({ output_index: 1, arguments: '{"a":1}', name: "f" });
    expect(events[14]?.response).toMatchObject({
      status: "completed",
      usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
      output: [{ type: "message" }, { type: "function_call", arguments: '{"a":1}' }],
    });
  });

  it("ends a stream stopped at the token limit with response.incomplete", async () => {
    const events = eventsOf(await written([delta({ content: "cut" }, "length")]));
    expect(events.at(-1)).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
    });
  });

  it("still writes a whole response when the provider sent no chunk", async () => {
    const events = eventsOf(await written([], { model: "asked" }));
    expect(events.map((e) => e.type)).toEqual(["response.created", "response.in_progress", "response.completed"]);
    expect(events[0]?.response).toMatchObject({ model: "asked", status: "in_progress", output: [] });
  });

  it("leaves a provider's failure to the relay, after the events already written", async () => {
    async function* failing(): AsyncGenerator<Json> {
      yield delta({ content: "a" });
      throw new GatewayError("upstream_stream_error", "broke");
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const part of responsesCodec.streamFromChat(failing(), base)) seen.push(String(eventsOf(part)[0]?.type));
      })(),
    ).rejects.toThrow("broke");
    expect(seen).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
    ]);
  });
});

/** A generated chat stream: text pieces and tool calls in any order, any finish, usage or not. */
const piece = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 12 }) }),
  fc.record({ tool: fc.integer({ min: 0, max: 2 }), args: fc.string({ maxLength: 8 }) }),
);
const chatStream = fc.record({
  pieces: fc.array(piece, { maxLength: 12 }),
  finish: fc.constantFrom("stop", "length", "tool_calls", "content_filter", null),
  usage: fc.option(fc.record({ prompt_tokens: fc.nat(1000), completion_tokens: fc.nat(1000) }), { nil: undefined }),
});

function chunksOf(generated: { pieces: unknown; finish: unknown; usage: unknown }): {
  chunks: Json[];
  text: string;
  args: Map<number, string>;
} {
  const chunks: Json[] = [];
  let text = "";
  const args = new Map<number, string>();
  for (const p of generated.pieces as Array<{ text?: string; tool?: number; args?: string }>) {
    if (p.text !== undefined) {
      text += p.text;
      chunks.push(delta({ content: p.text }));
    } else {
      const index = p.tool as number;
      const first = !args.has(index);
      args.set(index, (args.get(index) ?? "") + (p.args as string));
      const fn = first ? { name: `f${index}`, arguments: p.args } : { arguments: p.args };
      chunks.push(delta({ tool_calls: [{ index, ...(first && { id: `call_${index}`, type: "function" }), function: fn }] }));
    }
  }
  if (generated.finish) chunks.push(delta({}, generated.finish as string));
  if (generated.usage) chunks.push({ id: "c1", choices: [], usage: generated.usage });
  return { chunks, text, args };
}

describe("responsesCodec.streamFromChat over generated chat streams", () => {
  it("writes events the openai SDK's stream parser accepts, however the reads cut them, with the chat's text and arguments", async () => {
    await fc.assert(
      fc.asyncProperty(chatStream, cuttings, async (generated, cutting) => {
        const { chunks, text, args } = chunksOf(generated);
        const bytes = await written(chunks);
        const events = eventsOf(bytes);
        expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
        const response = await parsed(cut(bytes, cutting));
        expect(response.output_text).toBe(text);
        const calls = response.output.filter((item) => item.type === "function_call");
        expect(new Map(calls.map((c) => [Number(c.call_id.slice(5)), c.arguments]))).toEqual(args);
        expect(response.status).toBe(
          generated.finish === "length" || generated.finish === "content_filter" ? "incomplete" : "completed",
        );
        // The streamed answer is the JSON answer of the same completion.
        const json = responsesCodec.fromChat(
          {
            choices: [
              {
                message: {
                  content: text || null,
                  tool_calls: [...args].map(([i, a]) => ({ id: `call_${i}`, function: { name: `f${i}`, arguments: a } })),
                },
                finish_reason: generated.finish,
              },
            ],
            usage: generated.usage,
          },
          base,
        );
        expect(response.usage).toEqual(json.usage);
        // Text after a tool call opens a second message item in the stream; the kinds of output are the same.
        expect(new Set(response.output.map((i) => i.type))).toEqual(new Set((json.output as Json[]).map((i) => i.type)));
      }),
      PROPERTY_RUNS,
    );
  });
});
