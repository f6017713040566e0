import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import type { CallFacts } from "../../kind.js";
import { SafetyFacts } from "./filters.js";
import { chatCompletion } from "./response.js";

const RATINGS = [{ category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" }];
const none = () => new SafetyFacts(undefined);

describe("a Gemini answer as an OpenAI chat completion", () => {
  it("joins text parts, leaves thoughts out, and reports usage with cached tokens", () => {
    const completion = chatCompletion(
      {
        candidates: [
          {
            content: { role: "model", parts: [{ text: "thinking…", thought: true }, { text: "Hello " }, { text: "there" }] },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, thoughtsTokenCount: 2, cachedContentTokenCount: 6 },
        modelVersion: "gemini-2.0-flash-001",
      },
      { model: "gemini-2.0-flash" },
      "Gemini API",
      none(),
    );
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "gemini-2.0-flash-001",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 10, completion_tokens: 6, total_tokens: 16, prompt_tokens_details: { cached_tokens: 6 } },
    });
  });

  it("turns function calls into tool calls with ids, finishing with tool_calls", () => {
    const completion = chatCompletion(
      {
        candidates: [
          { content: { parts: [{ functionCall: { name: "weather", args: { city: "Paris" } } }] }, finishReason: "STOP" },
        ],
      },
      { model: "m" },
      "Gemini API",
      none(),
    );
    const choice = (completion.choices as Array<{ finish_reason: string; message: Record<string, unknown> }>)[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      {
        id: expect.stringMatching(/^call_[0-9a-f]{24}$/),
        type: "function",
        function: { name: "weather", arguments: '{"city":"Paris"}' },
      },
    ]);
  });

  it("maps finish reasons to OpenAI's", () => {
    const reasons = {
      STOP: "stop",
      MAX_TOKENS: "length",
      SAFETY: "content_filter",
      RECITATION: "content_filter",
      BLOCKLIST: "content_filter",
      PROHIBITED_CONTENT: "content_filter",
      SPII: "content_filter",
      OTHER: "stop",
    };
    for (const [gemini, openai] of Object.entries(reasons)) {
      const completion = chatCompletion(
        { candidates: [{ content: { parts: [{ text: "x" }] }, finishReason: gemini }] },
        {},
        "Gemini API",
        none(),
      );
      expect((completion.choices as Array<{ finish_reason: string }>)[0]?.finish_reason).toBe(openai);
    }
  });

  it("notes each category's worst rating over the candidates, and a stopped answer as filtered", () => {
    const facts: CallFacts = {};
    chatCompletion(
      {
        candidates: [
          { content: { parts: [{ text: "ok" }] }, finishReason: "STOP", index: 0, safetyRatings: RATINGS },
          {
            finishReason: "SAFETY",
            index: 1,
            safetyRatings: [
              { category: "HARM_CATEGORY_HARASSMENT", probability: "HIGH", blocked: true },
              { category: "HARM_CATEGORY_HATE_SPEECH", probability: "LOW", severity: "HARM_SEVERITY_MEDIUM" },
            ],
          },
        ],
      },
      {},
      "Vertex AI",
      new SafetyFacts(facts),
    );
    expect(facts.provider_filters).toEqual({
      source: "gemini_safety_filter",
      filtered: true,
      completion: {
        harassment: { filtered: true, severity: "high" },
        hate_speech: { filtered: false, severity: "medium" },
        safety: { filtered: true, detected: true },
      },
    });
  });

  it("answers a blocked prompt with a 400 naming the reason, and notes the block", () => {
    const facts: CallFacts = {};
    let error: unknown;
    try {
      chatCompletion(
        { promptFeedback: { blockReason: "SAFETY", safetyRatings: RATINGS } },
        {},
        "Gemini API",
        new SafetyFacts(facts),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: "provider_blocked_prompt" });
    expect((error as Error).message).toContain("SAFETY");
    expect(facts.provider_filters).toEqual({
      source: "gemini_safety_filter",
      filtered: true,
      prompt: { harassment: { filtered: false, severity: "negligible" }, safety: { filtered: true, detected: true } },
    });
  });
});
