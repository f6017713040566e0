import { countTokens as reference } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { prepareParameters, runOnText } from "../../../test/support/check-harness.js";
import tokenCount from "./tokenCount.js";

describe("default.tokenCount", () => {
  it("counts real o200k_base tokens by default", async () => {
    const out = await runOnText(tokenCount, "Hello, world!", {});
    // o200k_base: "Hello", ",", " world", "!"
    expect(out.data).toMatchObject({ tokenCount: 4, exact: true, encoding: "o200k_base", minTokens: 0, maxTokens: null });
    expect(out.verdict).toBe(true);
  });

  it("uses cl100k_base on request, where the count differs", async () => {
    const text = "The quick brown fox — façade, naïve 数学。";
    const o200k = await runOnText(tokenCount, text, {});
    const cl100k = await runOnText(tokenCount, text, { encoding: "cl100k_base" });
    expect(cl100k.data?.tokenCount).toBe(reference(text));
    expect(cl100k.data?.tokenCount).not.toBe(o200k.data?.tokenCount);
  });

  it("passes within the range, fails outside, inclusive bounds", async () => {
    expect((await runOnText(tokenCount, "Hello, world!", { minTokens: 4, maxTokens: 4 })).verdict).toBe(true);
    const over = await runOnText(tokenCount, "Hello, world!", { maxTokens: 3 });
    expect(over.verdict).toBe(false);
    expect(over.data?.explanation).toMatch(/4 tokens, outside the allowed range \(at most 3\)/);
    expect((await runOnText(tokenCount, "Hello, world!", { minTokens: 5 })).verdict).toBe(false);
  });

  it("inverts with not", async () => {
    expect((await runOnText(tokenCount, "Hello, world!", { maxTokens: 3, not: true })).verdict).toBe(true);
    expect((await runOnText(tokenCount, "Hello, world!", { maxTokens: 10, not: true })).verdict).toBe(false);
  });

  it("evaluates an empty text as 0 tokens", async () => {
    const out = await runOnText(tokenCount, "", { minTokens: 1 });
    expect(out.data?.tokenCount).toBe(0);
    expect(out.verdict).toBe(false);
  });

  it("counts special-token strings as plain text instead of failing", async () => {
    const out = await runOnText(tokenCount, "a <|endoftext|> b", {});
    expect(out.data?.tokenCount).toBeGreaterThan(3);
  });

  it("counts a run with no break in pieces and says the count is approximate", async () => {
    const text = "x".repeat(1000);
    const out = await runOnText(tokenCount, text, { encoding: "cl100k_base" });
    expect(out.data?.exact).toBe(false);
    const real = reference(text);
    expect(Math.abs((out.data?.tokenCount as number) - real)).toBeLessThanOrEqual(Math.ceil(1000 / 32));
  });

  it("rejects a minimum above the maximum, and unknown encodings", () => {
    expect(() => prepareParameters(tokenCount, { minTokens: 5, maxTokens: 2 })).toThrow(/maxTokens/);
    expect(() => prepareParameters(tokenCount, { encoding: "p50k_base" })).toThrow();
  });
});
