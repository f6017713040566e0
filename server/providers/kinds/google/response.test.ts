import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../errors.js";
import type { ProviderFilterRecord } from "../../../logs/record.js";
import { chatCompletion } from "./response.js";

const RATINGS = [{ category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" }];

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
      "google",
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
      "google",
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
        "google",
      );
      expect((completion.choices as Array<{ finish_reason: string }>)[0]?.finish_reason).toBe(openai);
    }
  });

  it("records a candidate's safety ratings, and a blocked answer as such", () => {
    const filters: ProviderFilterRecord[] = [];
    chatCompletion(
      {
        candidates: [
          { content: { parts: [{ text: "ok" }] }, finishReason: "STOP", index: 0, safetyRatings: RATINGS },
          {
            finishReason: "SAFETY",
            index: 1,
            safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "HIGH", blocked: true }],
          },
        ],
      },
      {},
      "vertex-ai",
      filters,
    );
    expect(filters).toEqual([
      { provider: "vertex-ai", kind: "safety_ratings", choice: 0, detail: { safetyRatings: RATINGS } },
      {
        provider: "vertex-ai",
        kind: "answer_blocked",
        choice: 1,
        detail: {
          finishReason: "SAFETY",
          safetyRatings: [{ category: "HARM_CATEGORY_HARASSMENT", probability: "HIGH", blocked: true }],
        },
      },
    ]);
  });

  it("answers a blocked prompt with a 400 naming the reason, and records the block", () => {
    const filters: ProviderFilterRecord[] = [];
    let error: unknown;
    try {
      chatCompletion({ promptFeedback: { blockReason: "SAFETY", safetyRatings: RATINGS } }, {}, "google", filters);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: "provider_blocked_prompt" });
    expect((error as Error).message).toContain("SAFETY");
    expect(filters).toEqual([
      { provider: "google", kind: "prompt_blocked", detail: { blockReason: "SAFETY", safetyRatings: RATINGS } },
    ]);
  });
});
