/**
 * The fast paths of segments.ts against Intl.Segmenter itself: random texts drawn from the
 * characters each path accepts must count the same either way.
 */
import { describe, expect, it, vi } from "vitest";
import { latinSentenceFastPathAgrees, countGraphemes, countSentences, countWords, latinWordFastPathAgrees } from "./segments.js";

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const graphemeSegmenter = new Intl.Segmenter("en", { granularity: "grapheme" });
const wordSegmenter = new Intl.Segmenter("en", { granularity: "word" });
const segmentedGraphemes = (text: string) => [...graphemeSegmenter.segment(text)].length;
const segmentedWords = (text: string) => [...wordSegmenter.segment(text)].filter((s) => s.isWordLike).length;
const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });
const segmentedSentences = (text: string) =>
  [...sentenceSegmenter.segment(text)].filter((s) => /[\p{L}\p{N}]/u.test(s.segment)).length;

describe("segment counting fast paths", () => {
  it("graphemes of text below U+0300 match the segmenter, CR LF included", () => {
    const next = random(1);
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = 1 + Math.floor(next() * 24);
      for (let j = 0; j < length; j++)
        text += next() < 0.15 ? (next() < 0.5 ? "\r" : "\n") : String.fromCharCode(Math.floor(next() * 0x300));
      expect(countGraphemes(text), JSON.stringify(text)).toBe(segmentedGraphemes(text));
    }
  });

  it("graphemes of mixed text match the segmenter: marks, joiners, emoji, flags, Hangul, Prepend", () => {
    const units = [
      ..."aZ9 .,©®é\u00ff",
      "\r",
      "\n",
      "\u0301", // combining acute (Extend)
      "\u200d", // zero width joiner
      "\ufe0f", // variation selector 16
      "\u{1f44d}", // thumbs up (a surrogate pair, Extended_Pictographic)
      "\u{1f3fd}", // skin tone modifier
      "\u{1f1eb}", // regional indicator F
      "\u{1f1f7}", // regional indicator R
      "\u1100", // Hangul choseong (L)
      "\u1161", // Hangul jungseong (V)
      "\u11a8", // Hangul jongseong (T)
      "\uac00", // Hangul syllable (LV)
      "\u0600", // Arabic number sign (Prepend)
      "\u0903", // Devanagari sign visarga (SpacingMark)
      "\u2019",
      "\u2014",
      "\u2013",
      "\u2018",
      "\u201c",
      "\u201d",
      "\u2026",
      "\u2012", // figure dash, next to the prose punctuation but not read as simple
      "\u2027",
      "東",
      "\ud800", // a lone surrogate
    ];
    const next = random(3);
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = 1 + Math.floor(next() * 16);
      for (let j = 0; j < length; j++) text += units[Math.floor(next() * units.length)];
      expect(countGraphemes(text), JSON.stringify(text)).toBe(segmentedGraphemes(text));
    }
  });

  it("counts the graphemes of prose with dashes, curly quotes and an ellipsis without the segmenter", () => {
    const prose = "“Don’t,” she said – twice — ‘really’… and left.\r\n";
    const expected = segmentedGraphemes(prose);
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      expect(countGraphemes(prose)).toBe(expected);
      expect(segment).not.toHaveBeenCalled();
    } finally {
      segment.mockRestore();
    }
  });

  it("words of ASCII and Latin-1 text match the segmenter", () => {
    expect(latinWordFastPathAgrees()).toBe(true);
    const alphabet = "aZk09_ .',;:!?-\"\r\n\t()/@#$%&*+=<>[]{}|\\^`~éÀÿ×÷\u00a0\u2013\u2014\u2018\u2019\u201c\u201d\u2026";
    const next = random(2);
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = 1 + Math.floor(next() * 32);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      expect(countWords(text), JSON.stringify(text)).toBe(segmentedWords(text));
    }
  });

  it("sentences of ASCII and Latin-1 text match the segmenter", () => {
    expect(latinSentenceFastPathAgrees()).toBe(true);
    const alphabet = "aaaZZ09éÉß   ..!?\"'()[]{},-:;\r\n\t@#\u00a0\u2013\u2014\u2018\u2019\u201c\u201d\u2026";
    const next = random(4);
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      const length = 1 + Math.floor(next() * 24);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      expect(countSentences(text), JSON.stringify(text)).toBe(segmentedSentences(text));
    }
  });

  it("prose counts the same either way", () => {
    const prose = "It's 3.14, isn't it? e.g. 1,000.5 items; user_name and __init__ at 10:30 a.m.\r\nDone.";
    expect(countWords(prose)).toBe(segmentedWords(prose));
    expect(countGraphemes(prose)).toBe(segmentedGraphemes(prose));
    expect(countSentences(prose)).toBe(segmentedSentences(prose));
  });
});
