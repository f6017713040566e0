import { describe, expect, it } from "vitest";
import { runOnText } from "../../../test/support/check-harness.js";
import notNull from "./notNull.js";

describe("default.notNull", () => {
  it("passes on text", async () => {
    const out = await runOnText(notNull, "hi", {});
    expect(out.verdict).toBe(true);
    expect(out.data).toMatchObject({ isBlank: false, textLength: 2, toolCalls: 0, toolCallsOnly: false });
  });

  it("fails on empty, blank and invisible-only text", async () => {
    for (const text of ["", "   \n\t", "\u200b\u200d\ufeff", "\u00a0\u3000"]) {
      const out = await runOnText(notNull, text, {});
      expect(out.verdict, JSON.stringify(text)).toBe(false);
      expect(out.data?.isBlank).toBe(true);
    }
  });

  it("fails when content is null", async () => {
    const request = { messages: [{ role: "user", content: null }] };
    const out = await runOnText(notNull, undefined, {}, { request });
    expect(out.verdict).toBe(false);
    expect(out.data?.explanation).toMatch(/empty/);
  });

  it("inverts with not", async () => {
    expect((await runOnText(notNull, "", { not: true })).verdict).toBe(true);
    expect((await runOnText(notNull, "x", { not: true })).verdict).toBe(false);
  });

  it("reports an OpenAI tool-call-only response, and passes it with allowToolCalls", async () => {
    const response = {
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    };
    const out = await runOnText(notNull, undefined, {}, { side: "output", response });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ toolCalls: 1, toolCallsOnly: true });
    expect(out.data?.explanation).toMatch(/tool call/);
    const allowed = await runOnText(notNull, undefined, { allowToolCalls: true }, { side: "output", response });
    expect(allowed.verdict).toBe(true);
  });

  it("reports an Anthropic tool_use-only response", async () => {
    const response = { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] };
    const out = await runOnText(notNull, undefined, {}, { side: "output", requestType: "messages", response });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ toolCalls: 1, toolCallsOnly: true, nonTextParts: 0 });
  });

  it("counts non-text parts: an image-only message is not text", async () => {
    const request = { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }] };
    const out = await runOnText(notNull, undefined, {}, { request });
    expect(out.verdict).toBe(false);
    expect(out.data).toMatchObject({ nonTextParts: 1, toolCallsOnly: false });
  });

  it("counts token arrays of completions and embeddings as non-text", async () => {
    const out = await runOnText(notNull, undefined, {}, { requestType: "embed", request: { input: [[1, 2, 3]] } });
    expect(out.verdict).toBe(false);
    expect(out.data?.nonTextParts).toBe(1);
  });
});
