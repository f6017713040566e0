import { countTokens as reference } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { prepareParameters, runOnText } from "../../../test/support/check-harness.js";
import tokenCount from "./tokenCount.js";
import { countTokens } from "../shared/tokens.js";

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

  it("is exact on ordinary text, counted pre-token by pre-token", async () => {
    const text = "It's a long text, isn't it?\n\n  With   spaces\tand tabs, 12345 numbers, “quotes” and 中文。\n".repeat(300);
    expect((await countTokens(text, "cl100k_base")).count).toBe(reference(text));
    expect((await countTokens(text, "cl100k_base")).exact).toBe(true);
  });

  it("counts a run with no break in pieces and says the count is approximate", async () => {
    const text = "x".repeat(1000);
    const out = await runOnText(tokenCount, text, { encoding: "cl100k_base" });
    expect(out.data?.exact).toBe(false);
    const real = reference(text);
    expect(Math.abs((out.data?.tokenCount as number) - real)).toBeLessThanOrEqual(Math.ceil(1000 / 32));
  });

  it("never cuts a surrogate pair", async () => {
    const text = "😀".repeat(100);
    expect((await countTokens(text, "o200k_base")).count).toBeGreaterThan(0);
  });

  it("rejects a minimum above the maximum, and unknown encodings", () => {
    expect(() => prepareParameters(tokenCount, { minTokens: 5, maxTokens: 2 })).toThrow(/maxTokens/);
    expect(() => prepareParameters(tokenCount, { encoding: "p50k_base" })).toThrow();
  });
});

describe("counting on a server's thread", () => {
  it("gives the event loop turns while it counts a megabyte of one letter, and counts it whole", async () => {
    const text = "a".repeat(1 << 20);
    let turnsSeen = 0;
    let counting = true;
    const watch = (): void => {
      if (!counting) return;
      turnsSeen++;
      setImmediate(watch);
    };
    setImmediate(watch);
    const shared = await countTokens(text, "cl100k_base", { yieldEveryMs: 1 });
    counting = false;
    const alone = await countTokens(text, "cl100k_base");
    expect(shared.count).toBe(alone.count);
    expect(shared.count).toBe(131_072);
    expect(shared.turns).toBeGreaterThan(1);
    expect(turnsSeen).toBeGreaterThanOrEqual(shared.turns);
    expect(alone.turns).toBe(0);
  });

  it("counts across its windows as it counts a whole text", async () => {
    // Pre-tokens that straddle the 8 KB windows the split pattern runs over are matched again whole.
    const text = "It's a long text, isn't it?\n\n  With   spaces\tand tabs, 12345 numbers, “quotes” and 中文。\n".repeat(2000);
    expect((await countTokens(text, "cl100k_base", { yieldEveryMs: 1 })).count).toBe(reference(text));
  });
});
