import { describe, expect, it } from "vitest";
import { runCheck } from "../../../test/support/run-check.js";

const count = async (text: string) => (await runCheck("default.sentenceCount", {}, text)).data.sentenceCount;

describe("default.sentenceCount", () => {
  it("reports the spec's data fields, minCount and maxCount", async () => {
    const result = await runCheck("default.sentenceCount", { minSentences: 1, maxSentences: 2 }, "One. Two. Three.");
    expect(result.verdict).toBe(false);
    expect(result.data).toEqual({
      sentenceCount: 3,
      minCount: 1,
      maxCount: 2,
      not: false,
      verdict: false,
      explanation: "The text has 3 sentences, outside the allowed range (between 1 and 2).",
      textExcerpt: "One. Two. Three.",
    });
  });

  it("not inverts the verdict", async () => {
    expect((await runCheck("default.sentenceCount", { maxSentences: 2, not: true }, "One. Two. Three.")).verdict).toBe(true);
  });

  it("does not end sentences at decimals, abbreviations or ellipses before lower case", async () => {
    expect(await count("Pi is 3.14 roughly.")).toBe(1);
    expect(await count("Use tools, e.g. hammers. Then stop.")).toBe(2);
    expect(await count("Hi... there")).toBe(1);
    expect(await count("Hello!!! World?")).toBe(2);
  });

  it("counts CJK sentences and ignores punctuation-only segments", async () => {
    expect(await count("你好。我很好。谢谢！")).toBe(3);
    expect(await count("... !!!")).toBe(0);
    expect(await count("")).toBe(0);
  });

  it("counts long texts exactly across chunks, with and without line breaks", async () => {
    expect(await count("A sentence here. ".repeat(3_000))).toBe(3_000);
    expect(await count("Line one is here\n".repeat(2_000))).toBe(2_000);
  });
});
