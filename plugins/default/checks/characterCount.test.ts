import { describe, expect, it } from "vitest";
import { runCheck } from "../../../test/support/run-check.js";

const count = async (text: string) => (await runCheck("default.characterCount", {}, text)).data.characterCount;

describe("default.characterCount", () => {
  it("reports the spec's data fields", async () => {
    const result = await runCheck("default.characterCount", { minCharacters: 1, maxCharacters: 5 }, "hello!");
    expect(result.verdict).toBe(false);
    expect(result.data).toEqual({
      characterCount: 6,
      minCharacters: 1,
      maxCharacters: 5,
      not: false,
      verdict: false,
      explanation: "The text has 6 characters, outside the allowed range (between 1 and 5).",
      textExcerpt: "hello!",
    });
  });

  it("not inverts; one bound alone works", async () => {
    expect((await runCheck("default.characterCount", { maxCharacters: 5, not: true }, "hello!")).verdict).toBe(true);
    expect((await runCheck("default.characterCount", { minCharacters: 3 }, "hey")).verdict).toBe(true);
  });

  it("counts grapheme clusters, not UTF-16 units", async () => {
    expect(await count("e\u0301")).toBe(1);
    expect(await count("👩‍👩‍👧‍👦")).toBe(1);
    expect(await count("👍🏽!")).toBe(2);
    expect(await count("")).toBe(0);
  });

  it("counts long mixed texts exactly across chunks", async () => {
    expect(await count("ab👍🏽 ".repeat(10_000))).toBe(40_000);
    expect(await count("x".repeat(100_000))).toBe(100_000);
  });

  it("excerpts long texts to 100 characters and an ellipsis", async () => {
    const result = await runCheck("default.characterCount", {}, "😀".repeat(150));
    expect(result.data.textExcerpt).toBe(`${"😀".repeat(100)}...`);
  });
});
