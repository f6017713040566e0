import { describe, expect, it } from "vitest";
import { compileRegex } from "../../../../index.js";
import { forEachMatch, scannableText, scanPattern } from "./match-scan.js";
import { countBy, replaceSpans, withoutOverlaps } from "./spans.js";

/** All matches by one global exec loop over the whole text: what the windowed scan must equal. */
function plainMatches(pattern: string, text: string): Array<[number, string]> {
  const regex = compileRegex(pattern, "g");
  const out: Array<[number, string]> = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) out.push([m.index, m[0]]);
  regex.lastIndex = 0;
  return out;
}

function windowedMatches(pattern: string, text: string, maxLength: number): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  forEachMatch(scanPattern(pattern), text, maxLength, (m) => out.push([m.index, m.text]));
  return out;
}

describe("forEachMatch", () => {
  it("finds what one exec loop finds, across window boundaries", () => {
    let text = "";
    for (let i = 0; text.length < 60_000; i++) text += `word${i} ${i % 7 === 0 ? "AB12CD34 " : ""}${"x".repeat(i % 13)} `;
    for (const [pattern, max] of [
      ["\\b[A-Z]{2}\\d{2}[A-Z]{2}\\d{2}\\b", 8],
      ["\\bword\\d{1,5}\\b", 9],
      ["x{3,12}", 12],
    ] as const) {
      expect(windowedMatches(pattern, text, max)).toEqual(plainMatches(pattern, text));
    }
  });

  it("honours a word boundary just before a window's own region", () => {
    const text = `${"a".repeat(1_022)}1234 5678`;
    expect(windowedMatches("\\b\\d{4}\\b", text, 4)).toEqual([[1_027, "5678"]]);
  });
});

describe("scannableText", () => {
  it("keeps length and positions, replacing surrogates", () => {
    const text = "a😀b\uD800c";
    const scan = scannableText(text);
    expect(scan.length).toBe(text.length);
    expect(scan).toBe("a\uFFFD\uFFFDb\uFFFDc");
    expect(scannableText("plain")).toBe("plain");
  });
});

describe("spans", () => {
  it("keeps the better of overlapping spans and replaces them", () => {
    const spans = [
      { start: 0, end: 5, label: "A" },
      { start: 2, end: 10, label: "B" },
      { start: 12, end: 14, label: "C" },
    ];
    const kept = withoutOverlaps(spans, (a, b) => a.end - a.start > b.end - b.start);
    expect(kept.map((s) => s.label)).toEqual(["B", "C"]);
    expect(replaceSpans("0123456789abcdef", kept, (s) => `[${s.label}]`)).toBe("01[B]ab[C]ef");
    expect(countBy(spans, (s) => (s.label === "C" ? "c" : "ab"))).toEqual({ ab: 2, c: 1 });
  });
});
