import { describe, expect, it } from "vitest";
import { textExcerpt } from "./text.js";

/** The definition: the first 100 code points, and "..." when there were more. */
function reference(text: string): string {
  const points = Array.from(text);
  return points.length <= 100 ? text : `${points.slice(0, 100).join("")}...`;
}

describe("textExcerpt", () => {
  const cases: Array<[string, string]> = [
    ["empty", ""],
    ["short", "A short answer."],
    ["exactly 100", "x".repeat(100)],
    ["101", "x".repeat(101)],
    ["emoji across the cut", `${"x".repeat(99)}😀😀tail`],
    ["100 emoji", "😀".repeat(100)],
    ["101 emoji", "😀".repeat(101)],
    ["family emoji", "👨‍👩‍👧".repeat(40)],
    ["lone high surrogate", `${"x".repeat(99)}\ud83dx${"y".repeat(10)}`],
    ["lone low surrogate", `\ude00${"x".repeat(120)}`],
    ["high surrogate at the very end", `${"x".repeat(100)}\ud83d`],
    ["CJK", "東京は日本の首都です。".repeat(20)],
  ];
  it.each(cases)("%s", (_name, text) => {
    expect(textExcerpt(text)).toBe(reference(text));
  });
});
