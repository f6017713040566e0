import { countTokens as reference } from "gpt-tokenizer/encoding/cl100k_base";
import { describe, expect, it } from "vitest";
import { countTokens } from "./tokens.js";

describe("countTokens", () => {
  it("is exact on ordinary text, counted pre-token by pre-token", async () => {
    const text = "It's a long text, isn't it?\n\n  With   spaces\tand tabs, 12345 numbers, “quotes” and 中文。\n".repeat(300);
    expect((await countTokens(text, "cl100k_base")).count).toBe(reference(text));
    expect((await countTokens(text, "cl100k_base")).exact).toBe(true);
  });

  it("never cuts a surrogate pair", async () => {
    const text = "😀".repeat(100);
    expect((await countTokens(text, "o200k_base")).count).toBeGreaterThan(0);
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
