import { describe, expect, it } from "vitest";
import { chatCompletion, finishReason } from "./response.js";

describe("Converse → OpenAI chat completion", () => {
  it("joins text, turns toolUse into tool calls and counts cached input as OpenAI does", () => {
    const completion = chatCompletion(
      {
        output: {
          message: {
            role: "assistant",
            content: [
              { text: "Let me " },
              { text: "look." },
              { toolUse: { toolUseId: "tu_1", name: "weather", input: { city: "Paris" } } },
            ],
          },
        },
        stopReason: "tool_use",
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 19, cacheReadInputTokens: 4 },
      },
      { model: "us.anthropic.claude-3-5-sonnet-20240620-v1:0" },
    );
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "us.anthropic.claude-3-5-sonnet-20240620-v1:0",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me look.",
            tool_calls: [{ id: "tu_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }],
          },
        },
      ],
      usage: { prompt_tokens: 14, completion_tokens: 5, total_tokens: 19, prompt_tokens_details: { cached_tokens: 4 } },
    });
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
  });

  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["guardrail_intervened", "content_filter"],
    ["content_filtered", "content_filter"],
  ])("maps stop reason %s to finish reason %s", (stop, finish) => {
    expect(finishReason(stop)).toBe(finish);
  });
});
