import { describe, expect, it } from "vitest";
import { providerCall } from "../../../test/support/provider-call.js";
import { GatewayError } from "../../errors.js";
import type { Json } from "../kind.js";
import { anthropicCodec } from "./anthropic.js";

const call = (dropParams = false) => providerCall("/v1/messages", { dropParams });
const base = { model: "m", max_tokens: 10 };

function refusal(body: Json, dropParams = false): string {
  try {
    anthropicCodec.toChat(body, call(dropParams));
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return `${(error as GatewayError).code}: ${(error as GatewayError).message}`;
  }
  return "accepted";
}

describe("anthropicCodec.toChat", () => {
  it.each([
    ["a system string", { system: "S", messages: [] }, [{ role: "system", content: "S" }]],
    [
      "system blocks, joined",
      {
        system: [
          { type: "text", text: "A", cache_control: { type: "ephemeral" } },
          { type: "text", text: "B" },
        ],
        messages: [],
      },
      [{ role: "system", content: "A\nB" }],
    ],
    [
      "tool results first, then the user's other blocks",
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "and?" },
              { type: "tool_result", tool_use_id: "t1", content: "r1" },
              { type: "tool_result", tool_use_id: "t2", content: [{ type: "text", text: "r2" }] },
            ],
          },
        ],
      },
      [
        { role: "tool", tool_call_id: "t1", content: "r1" },
        { role: "tool", tool_call_id: "t2", content: "r2" },
        { role: "user", content: [{ type: "text", text: "and?" }] },
      ],
    ],
    [
      "an assistant's tool_use as tool_calls with JSON arguments",
      { messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: { a: 1 } }] }] },
      [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "t1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
        },
      ],
    ],
  ])("maps %s", (_name, body, messages) => {
    expect(anthropicCodec.toChat({ ...base, ...body }, call()).messages).toEqual(messages);
  });

  it.each([
    [{ type: "auto" }, { tool_choice: "auto" }],
    [{ type: "any" }, { tool_choice: "required" }],
    [{ type: "none" }, { tool_choice: "none" }],
    [
      { type: "tool", name: "f", disable_parallel_tool_use: true },
      { tool_choice: { type: "function", function: { name: "f" } }, parallel_tool_calls: false },
    ],
  ])("maps tool_choice %j", (choice, expected) => {
    const chat = anthropicCodec.toChat({ ...base, messages: [], tool_choice: choice }, call());
    expect(chat).toMatchObject(expected);
  });

  it("keeps a field it has no mapping for under its name, for the translation to refuse or drop", () => {
    expect(anthropicCodec.toChat({ ...base, messages: [], top_k: 3, thinking: { type: "enabled" } }, call())).toMatchObject({
      top_k: 3,
      thinking: { type: "enabled" },
    });
  });

  it.each([
    [
      { messages: [{ role: "user", content: [{ type: "document", source: {} }] }] },
      /^unsupported_parameter: messages\[0\]\.content\[0\]: a "document" block/,
    ],
    [
      { messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "x" }] }] },
      /^unsupported_parameter: messages\[0\]\.content\[0\]/,
    ],
    [
      {
        messages: [
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "image", source: {} }] }] },
        ],
      },
      /^unsupported_parameter: messages\[0\]\.content\[0\]\.content\[0\]: a tool message .* holds text only/,
    ],
    [
      { messages: [], tools: [{ type: "web_search_20250305", name: "web_search" }] },
      /^invalid_request: tools\[0\]: only custom tools/,
    ],
    [
      { messages: [{ role: "user", content: [{ type: "image", source: { type: "file", file_id: "f" } }] }] },
      /^invalid_request: messages\[0\]\.content\[0\]\.source/,
    ],
    [{ messages: [{ role: "system", content: "x" }] }, /^invalid_request: messages\[0\]\.role/],
  ])("refuses what an OpenAI-format provider cannot take: %j", (body, says) => {
    expect(refusal({ ...base, ...body })).toMatch(says);
  });

  it('sends service_tier "auto" as the provider\'s default, and refuses another tier', () => {
    expect(anthropicCodec.toChat({ ...base, messages: [], service_tier: "auto" }, call())).not.toHaveProperty("service_tier");
    expect(refusal({ ...base, messages: [], service_tier: "standard_only" })).toMatch(/^unsupported_parameter: service_tier: /);
  });

  it("drops a block it cannot send under drop_params", () => {
    const body = {
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: {} },
            { type: "text", text: "hi" },
          ],
        },
      ],
    };
    expect(refusal(body, true)).toBe("accepted");
    expect(anthropicCodec.toChat(body, call(true)).messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });
});

describe("anthropicCodec.fromChat", () => {
  it.each([
    ["stop", "end_turn"],
    ["length", "max_tokens"],
    ["tool_calls", "tool_use"],
    ["content_filter", "refusal"],
  ])("maps finish reason %s to stop reason %s", (finish, stop) => {
    const message = anthropicCodec.fromChat({ choices: [{ message: { content: "x" }, finish_reason: finish }] }, {});
    expect(message.stop_reason).toBe(stop);
  });

  it("counts cached tokens apart from the other input tokens, and keeps unparsable arguments as text", () => {
    const message = anthropicCodec.fromChat(
      {
        id: "c1",
        model: "m",
        choices: [
          {
            message: { content: null, tool_calls: [{ id: "t", function: { name: "f", arguments: "{broken" } }] },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 60 } },
      },
      {},
    );
    expect(message).toMatchObject({
      content: [{ type: "tool_use", id: "t", name: "f", input: "{broken" }],
      usage: { input_tokens: 40, output_tokens: 5, cache_read_input_tokens: 60 },
    });
  });
});

async function events(chunks: Json[]): Promise<Array<[string, Json]>> {
  const out: Array<[string, Json]> = [];
  async function* source() {
    yield* chunks;
  }
  for await (const bytes of anthropicCodec.streamFromChat(source(), { model: "asked" })) {
    const text = bytes.toString();
    out.push([/^event: (.*)$/m.exec(text)?.[1] ?? "", JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? "{}") as Json]);
  }
  return out;
}

const delta = (value: Json, finish: string | null = null) => ({
  id: "c1",
  model: "m",
  choices: [{ index: 0, delta: value, finish_reason: finish }],
});

describe("anthropicCodec.streamFromChat", () => {
  it("writes text and tool calls as blocks, opened and closed in order, the usage last", async () => {
    const written = await events([
      delta({ role: "assistant", content: "" }),
      delta({ content: "Hi " }),
      delta({ content: "there" }),
      delta({ tool_calls: [{ index: 0, id: "t1", type: "function", function: { name: "f", arguments: "" } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      delta({}, "tool_calls"),
      { id: "c1", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } } },
    ]);
    expect(written.map(([name, data]) => [name, data.index ?? null])).toEqual([
      ["message_start", null],
      ["content_block_start", 0],
      ["content_block_delta", 0],
      ["content_block_delta", 0],
      ["content_block_stop", 0],
      ["content_block_start", 1],
      ["content_block_delta", 1],
      ["content_block_delta", 1],
      ["content_block_stop", 1],
      ["message_delta", null],
      ["message_stop", null],
    ]);
    expect(written[5]?.[1].content_block).toEqual({ type: "tool_use", id: "t1", name: "f", input: {} });
    expect(written[7]?.[1].delta).toEqual({ type: "input_json_delta", partial_json: "1}" });
    expect(written[9]?.[1]).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 7, output_tokens: 4, cache_read_input_tokens: 2 },
    });
  });

  it("still writes a whole message when the provider sent no chunk and no usage", async () => {
    const written = await events([]);
    expect(written.map(([name]) => name)).toEqual(["message_start", "message_delta", "message_stop"]);
    expect(written[0]?.[1].message).toMatchObject({ model: "asked", usage: { input_tokens: 0, output_tokens: 0 } });
  });
});

describe("anthropicCodec.streamFromChat as chunks arrive", () => {
  it("writes each chunk's events before the next chunk comes", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    async function* source() {
      yield delta({ content: "first" });
      await held;
      yield delta({}, "stop");
    }
    const out = anthropicCodec.streamFromChat(source(), {})[Symbol.asyncIterator]();
    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push(/^event: (.*)$/m.exec(String((await out.next()).value))?.[1] ?? "");
    expect(names).toEqual(["message_start", "content_block_start", "content_block_delta"]);
    release();
    let rest = 0;
    while (!(await out.next()).done) rest++;
    expect(rest).toBe(3);
  });
});
