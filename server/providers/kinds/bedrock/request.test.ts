import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import { converseRequest } from "./request.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("OpenAI chat → Converse", () => {
  it("moves system prompts out, merges turns of one role, and maps the sampling fields", () => {
    const body = converseRequest(
      {
        model: "anthropic.claude-3-haiku",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
          { role: "user", content: "one" },
          {
            role: "user",
            content: [
              { type: "text", text: "two" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
          { role: "assistant", content: "three" },
        ],
        max_completion_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        stop: "END",
      },
      false,
    );
    expect(body).toEqual({
      system: [{ text: "Be brief." }, { text: "Answer in French." }],
      messages: [
        { role: "user", content: [{ text: "one" }, { text: "two" }, { image: { format: "png", source: { bytes: PNG } } }] },
        { role: "assistant", content: [{ text: "three" }] },
      ],
      inferenceConfig: { maxTokens: 64, temperature: 0.2, topP: 0.9, stopSequences: ["END"] },
    });
  });

  it("sends tools, tool choices, tool calls and tool results as Converse blocks", () => {
    const tools = [
      {
        type: "function",
        function: {
          name: "weather",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ];
    const messages = [
      { role: "user", content: "weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ];
    const body = converseRequest(
      { model: "m", messages, tools, tool_choice: { type: "function", function: { name: "weather" } } },
      false,
    );
    expect(body.messages).toEqual([
      { role: "user", content: [{ text: "weather in Paris?" }] },
      { role: "assistant", content: [{ toolUse: { toolUseId: "call_1", name: "weather", input: { city: "Paris" } } }] },
      { role: "user", content: [{ toolResult: { toolUseId: "call_1", content: [{ text: "sunny" }] } }] },
    ]);
    expect(body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: "weather", description: "Weather", inputSchema: { json: tools[0]!.function.parameters } } }],
      toolChoice: { tool: { name: "weather" } },
    });
    expect(
      (converseRequest({ model: "m", messages: messages.slice(0, 1), tools }, false).toolConfig as { toolChoice: unknown })
        .toolChoice,
    ).toEqual({ auto: {} });
    expect(
      (
        converseRequest({ model: "m", messages: messages.slice(0, 1), tools, tool_choice: "required" }, false).toolConfig as {
          toolChoice: unknown;
        }
      ).toolChoice,
    ).toEqual({ any: {} });
    // "none": no tools are sent, so none can be called; with tool calls in the conversation it is refused.
    expect(
      converseRequest({ model: "m", messages: messages.slice(0, 1), tools, tool_choice: "none" }, false).toolConfig,
    ).toBeUndefined();
    const none = refusal(() => converseRequest({ model: "m", messages, tools, tool_choice: "none" }, false));
    expect([none.status, none.code]).toEqual([400, "unsupported_parameter"]);
    expect(none.message).toMatch(/^tool_choice/);
  });

  it.each([
    [
      "an image by URL",
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }] },
      "unsupported_content",
      "messages[0].content[0].image_url",
    ],
    [
      "an image format Bedrock lacks",
      { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/tiff;base64,AAAA" } }] }] },
      "unsupported_content",
      "messages[0].content[0].image_url",
    ],
    [
      "an audio part",
      { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] },
      "unsupported_content",
      "messages[0].content[0]",
    ],
    ["n above one", { n: 2, messages: [{ role: "user", content: "hi" }] }, "unsupported_parameter", "n"],
    [
      "tool arguments that are not JSON",
      { messages: [{ role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{" } }] }] },
      "invalid_request",
      "messages[0].tool_calls[0].function.arguments",
    ],
  ])("refuses %s with a 400 naming it", (_what, request, code, where) => {
    const error = refusal(() => converseRequest({ model: "m", ...request }, false));
    expect([error.status, error.code]).toEqual([400, code]);
    expect(error.message.startsWith(`${where}:`)).toBe(true);
  });

  it("drops n with drop_params", () => {
    expect(converseRequest({ model: "m", n: 3, messages: [{ role: "user", content: "hi" }] }, true)).toEqual({
      messages: [{ role: "user", content: [{ text: "hi" }] }],
    });
  });
});
