import { describe, expect, it } from "vitest";
import { textExcerpt } from "./text.js";

describe("textExcerpt", () => {
  it("keeps texts of up to 100 code points whole", () => {
    expect(textExcerpt("short")).toBe("short");
    expect(textExcerpt("🎉".repeat(100))).toBe("🎉".repeat(100));
  });

  it("cuts longer texts after 100 code points, never inside a surrogate pair", () => {
    expect(textExcerpt("a".repeat(150))).toBe(`${"a".repeat(100)}...`);
    expect(textExcerpt(`${"a".repeat(99)}🎉🎉`)).toBe(`${"a".repeat(99)}🎉...`);
    expect(textExcerpt("🎉".repeat(101))).toBe(`${"🎉".repeat(100)}...`);
  });

  it("counts a lone surrogate as one code point, as Array.from does", () => {
    const text = `\ud83d${"b".repeat(120)}`;
    expect(textExcerpt(text)).toBe(`${Array.from(text).slice(0, 100).join("")}...`);
  });
});
