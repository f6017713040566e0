import { describe, expect, it } from "vitest";
import type { CallFacts } from "../../kind.js";
import { SafetyFacts } from "./filters.js";
import { chatChunks } from "./stream.js";

async function* bytes(text: string, size: number): AsyncGenerator<Buffer> {
  const all = Buffer.from(text);
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

const event = (value: unknown) => `data: ${JSON.stringify(value)}\r\n\r\n`;

interface Chunk {
  id: string;
  choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
  usage?: Record<string, unknown>;
}

async function collect(text: string, size = 7, facts?: CallFacts) {
  const chunks: Chunk[] = [];
  for await (const chunk of chatChunks(bytes(text, size), { model: "gemini" }, "Gemini API", new SafetyFacts(facts)))
    chunks.push(chunk as unknown as Chunk);
  return chunks;
}

describe("a Gemini SSE stream as OpenAI chunks", () => {
  it("sends text deltas event by event, the finish reason, then usage, whatever the reads' cuts", async () => {
    const stream =
      event({ candidates: [{ content: { role: "model", parts: [{ text: "Héllo " }] }, index: 0 }], responseId: "r1" }) +
      event({
        candidates: [{ content: { role: "model", parts: [{ text: "world" }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, cachedContentTokenCount: 1 },
      });
    for (const size of [1, 5, 1000]) {
      const chunks = await collect(stream, size);
      expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
        { role: "assistant", content: "Héllo " },
        { content: "world" },
        {},
        undefined,
      ]);
      expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, null, "stop", null]);
      expect(chunks.at(-1)).toMatchObject({
        id: "chatcmpl-r1",
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, prompt_tokens_details: { cached_tokens: 1 } },
      });
      expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["chatcmpl-r1"]));
    }
  });

  it("sends a function call as one whole tool-call delta, finishing with tool_calls", async () => {
    const chunks = await collect(
      event({ candidates: [{ content: { parts: [{ functionCall: { name: "weather", args: { city: "Rome" } } }] } }] }) +
        event({ candidates: [{ content: { parts: [{ text: "" }] }, finishReason: "STOP" }] }),
    );
    expect(chunks[0]?.choices[0]?.delta).toEqual({
      role: "assistant",
      tool_calls: [
        {
          index: 0,
          id: expect.stringMatching(/^call_/),
          type: "function",
          function: { name: "weather", arguments: '{"city":"Rome"}' },
        },
      ],
    });
    expect(chunks[1]?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("fails with 502 when the stream ends before its candidate finished", async () => {
    const cut = event({ candidates: [{ content: { parts: [{ text: "Hel" }] } }] });
    await expect(collect(cut)).rejects.toMatchObject({ status: 502, code: "upstream_stream_incomplete" });
    await expect(collect("")).rejects.toMatchObject({ status: 502, code: "upstream_stream_incomplete" });
  });

  it("fails with 400 provider_blocked_prompt on a blocked prompt, noting it", async () => {
    const facts: CallFacts = {};
    await expect(collect(event({ promptFeedback: { blockReason: "PROHIBITED_CONTENT" } }), 7, facts)).rejects.toMatchObject({
      status: 400,
      code: "provider_blocked_prompt",
    });
    expect(facts.provider_filters).toEqual({
      source: "gemini_safety_filter",
      filtered: true,
      prompt: { prohibited_content: { filtered: true, detected: true } },
    });
  });

  it("finishes a candidate the safety filter stopped with content_filter, noting the worst rating of the stream", async () => {
    const facts: CallFacts = {};
    const chunks = await collect(
      event({
        candidates: [
          {
            content: { parts: [{ text: "Step one" }] },
            safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "MEDIUM" }],
          },
        ],
      }) +
        event({
          candidates: [
            {
              finishReason: "SAFETY",
              safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }],
            },
          ],
        }),
      7,
      facts,
    );
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("content_filter");
    expect(facts.provider_filters).toEqual({
      source: "gemini_safety_filter",
      filtered: true,
      completion: { dangerous_content: { filtered: true, severity: "high" }, safety: { filtered: true, detected: true } },
    });
  });

  it("fails with upstream_stream_error on an error event", async () => {
    await expect(collect(event({ error: { code: 500, message: "Internal error", status: "INTERNAL" } }))).rejects.toMatchObject({
      status: 502,
      code: "upstream_stream_error",
    });
  });
});
