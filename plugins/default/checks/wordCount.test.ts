import { describe, expect, it } from "vitest";
import { runCheck } from "../../../test/support/run-check.js";

describe("default.wordCount", () => {
  it("passes within the range and reports the spec's data fields", async () => {
    const result = await runCheck("default.wordCount", { minWords: 2, maxWords: 4 }, "one two three");
    expect(result.verdict).toBe(true);
    expect(result.data).toEqual({
      wordCount: 3,
      minWords: 2,
      maxWords: 4,
      not: false,
      verdict: true,
      explanation: "The text has 3 words, within the allowed range (between 2 and 4).",
      textExcerpt: "one two three",
    });
  });

  it("fails outside the range, and not inverts", async () => {
    expect((await runCheck("default.wordCount", { maxWords: 2 }, "one two three")).verdict).toBe(false);
    const inverted = await runCheck("default.wordCount", { maxWords: 2, not: true }, "one two three");
    expect(inverted.verdict).toBe(true);
    expect(inverted.data.explanation).toContain("inverted");
  });

  it("defaults to a minimum of 0 and no maximum", async () => {
    const result = await runCheck("default.wordCount", {}, "");
    expect(result.verdict).toBe(true);
    expect(result.data).toMatchObject({ wordCount: 0, minWords: 0, maxWords: null });
  });

  it("counts as a reader does", async () => {
    const count = async (text: string) => (await runCheck("default.wordCount", {}, text)).data.wordCount;
    expect(await count("Pi is 3.14 — well-known!")).toBe(5); // hyphenated compounds count as their parts, as in UAX #29
    expect(await count("It's e.g. fine...")).toBe(3);
    expect(await count("今日は良い天気ですね")).toBeGreaterThan(1);
    expect(await count("  ,,, !!! ")).toBe(0);
  });

  it("counts long texts exactly across the segmenter's chunks", async () => {
    const text = "alpha beta gamma delta ".repeat(5_000);
    expect((await runCheck("default.wordCount", {}, text)).data.wordCount).toBe(20_000);
  });
});
