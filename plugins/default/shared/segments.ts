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

/*
 * Fast paths. Intl.Segmenter costs about half a microsecond per segment here (1 KB of English
 * prose with curly quotes: 0.47 ms of graphemes, 0.23 ms of words), which would dominate a
 * gateway request. For the texts most requests carry — ASCII and Latin-1 letters with the
 * punctuation of prose — the rules reduce to simple scans (10 µs and 20 µs on that text), each
 * checked against the segmenter at first use and by randomised tests to give the same counts.
 */

/** Graphemes of a text with no combining code unit: one per code unit, CR LF counting once (GB3). */
function countSimpleGraphemes(text: string): number {
  let n = text.length;
  for (let i = text.indexOf("\r\n"); i !== -1; i = text.indexOf("\r\n", i + 2)) n--;
  return n;
}

/**
 * What the word fast path reads: ASCII, the Latin-1 letters À–ÿ (not × and ÷), the curly single
 * quotes (which join like `.`), and dashes, curly double quotes, no-break space and the ellipsis
 * (which join nothing). Anything else goes to the segmenter.
 */
const BEYOND_LATIN = /[^\t-\u007f\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u00a0\u2013\u2014\u2018\u2019\u201c\u201d\u2026]/;

const isLetter = (c: number) =>
  (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0xc0 && c <= 0xff && c !== 0xd7 && c !== 0xf7);
const isAsciiDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isWordUnit = (c: number) => isLetter(c) || isAsciiDigit(c) || c === 0x5f;
const isCurlyQuote = (c: number) => c === 0x2018 || c === 0x2019;
/** `'`, `.`, `:` and the curly single quotes join letters (WB6/7). */
const joinsLetters = (c: number) => c === 0x27 || c === 0x2e || c === 0x3a || isCurlyQuote(c);
/** `.`, `,`, `;`, `'` and the curly single quotes join digits (WB11/12). */
const joinsDigits = (c: number) => c === 0x2e || c === 0x2c || c === 0x3b || c === 0x27 || isCurlyQuote(c);

/**
 * UAX #29 words over ASCII and Latin-1 letters as ICU applies them, in one scan: letters, digits
 * and underscores join (WB8-10, WB13a/b); one `'`, `.`, `:` or curly single quote joins two
 * letters (WB6/7), one `.`, `,`, `;`, `'` or curly single quote two digits (WB11/12). A segment
 * is word-like when it holds a letter or digit, or is two or more underscores.
 */
function countLatinWords(text: string): number {
  let n = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    if (!isWordUnit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let alnum = false;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (isWordUnit(c)) {
        if (c !== 0x5f) alnum = true;
        i++;
        continue;
      }
      const before = text.charCodeAt(i - 1);
      const after = text.charCodeAt(i + 1);
      const joins =
        (joinsLetters(c) && isLetter(before) && isLetter(after)) ||
        (joinsDigits(c) && isAsciiDigit(before) && isAsciiDigit(after));
      if (!joins) break;
      i++;
    }
    if (alnum || i - start > 1) n++;
  }
  return n;
}

function countSegmentedWords(text: string): number {
  let n = 0;
  for (const chunk of chunks(text, "word")) {
    for (const segment of segmenters.word.segment(chunk)) if (segment.isWordLike) n++;
  }
  return n;
}

let latinWordsAgree: boolean | undefined;

/**
 * Whether this runtime's ICU segments words as countLatinWords says: every ASCII punctuation
 * character and every non-letter the fast path reads, between letters, between digits and between
 * the two, plus the underscore and Latin-1 cases. An ICU that tailors a rule differently turns the
 * fast path off rather than change a count.
 */
export function latinWordFastPathAgrees(): boolean {
  if (latinWordsAgree === undefined) {
    const probes = ["_", "__", "a_", "_1", "a1b", "a.b.c", "a..b", "1.2.3", "1,,2", "can't", "e.g.", "3.14", "1,000.5"];
    probes.push("café", "résumé", "ÀÖØöøÿ", "é1é", "naïve’s", "don’t", "1’000", "a—b", "“quoted”", "a\u00a0b", "wait…", "×÷");
    const between = ["\u00a0", "\u2013", "\u2014", "\u2018", "\u2019", "\u201c", "\u201d", "\u2026", "\u00d7", "\u00f7"];
    for (let c = 0x20; c < 0x7f; c++) between.push(String.fromCharCode(c));
    for (const mid of between) {
      if (/[A-Za-z0-9]/.test(mid)) continue;
      probes.push(`a${mid}b`, `1${mid}2`, `a${mid}1`, `1${mid}a`, `_${mid}_`, `é${mid}ü`);
    }
    probes.push("line\r\nnext", "tab\there");
    latinWordsAgree = probes.every((probe) => countLatinWords(probe) === countSegmentedWords(probe));
  }
  return latinWordsAgree;
}

function countSegmentedGraphemes(text: string): number {
  let n = 0;
  for (const chunk of chunks(text, "grapheme")) for (const _ of segmenters.grapheme.segment(chunk)) n++;
  return n;
}

/**
 * Below U+0300 no code unit extends or joins another (no Extend, ZWJ, Prepend or SpacingMark), nor
 * do the dashes, curly quotes and ellipsis of prose (– — ‘ ’ “ ” …, Grapheme_Cluster_Break Other,
 * not Extended_Pictographic); a stretch of such code units is one grapheme per code unit but CR LF.
 * The punctuation is here because each one otherwise cost a call of the segmenter: in the gateway
 * benchmark's 1 KB prose that was the largest part of the characterCount check.
 */
const COMBINING = /[\u0300-\u2012\u2015-\u2017\u201a\u201b\u201e-\u2025\u2027-\uffff]/g;
const simple = (c: number) =>
  c < 0x300 || c === 0x2013 || c === 0x2014 || c === 0x2018 || c === 0x2019 || c === 0x201c || c === 0x201d || c === 0x2026;

/**
 * Number of grapheme clusters. Between two simple code units (above) a break always falls but in
 * CR LF, so only the stretches around the other code units go through the segmenter: each
 * from the code unit before the first (a base its marks extend) to the first place two simple
 * code units meet (so a Prepend or a ZWJ sequence stays whole). English prose with a few curly
 * quotes and dashes counts at the speed of ASCII.
 */
export function countGraphemes(text: string): number {
  COMBINING.lastIndex = 0;
  let found = COMBINING.exec(text);
  if (!found) return countSimpleGraphemes(text);
  let n = 0;
  let counted = 0;
  while (found) {
    const i = found.index;
    // A line feed is a control (GB4/5: nothing extends it); starting at it would split a CR LF.
    const start = i > counted && text.charCodeAt(i - 1) !== 0x0a ? i - 1 : i;
    let end = i + 1;
    while (
      end < text.length &&
      !(
        simple(text.charCodeAt(end - 1)) &&
        simple(text.charCodeAt(end)) &&
        !(text.charCodeAt(end - 1) === 0x0d && text.charCodeAt(end) === 0x0a)
      )
    )
      end++;
    n += countSimpleGraphemes(text.slice(counted, start)) + countSegmentedGraphemes(text.slice(start, end));
    counted = end;
    COMBINING.lastIndex = end;
    found = COMBINING.exec(text);
  }
  return n + countSimpleGraphemes(text.slice(counted));
}

/** Number of words: word-like segments (letters, digits, ideographs), so punctuation is no word. */
export function countWords(text: string): number {
  if (!BEYOND_LATIN.test(text) && latinWordFastPathAgrees()) return countLatinWords(text);
  return countSegmentedWords(text);
}

/** Number of sentences: sentence segments holding at least one letter or digit. */
export function countSentences(text: string): number {
  if (!BEYOND_LATIN.test(text) && latinSentenceFastPathAgrees()) return countLatinSentences(text);
  return countSegmentedSentences(text);
}

function countSegmentedSentences(text: string): number {
  let n = 0;
  for (const chunk of chunks(text, "sentence")) {
    for (const { segment } of segmenters.sentence.segment(chunk)) if (HAS_LETTER_OR_DIGIT.test(segment)) n++;
  }
  return n;
}

/** Sentence_Break classes (UAX #29) of the code units the fast path reads. */
const enum SB {
  Other,
  ParaSep,
  Sp,
  Lower,
  Upper,
  Numeric,
  ATerm,
  STerm,
  Close,
  SContinue,
}

/** Classes of ASCII and Latin-1, by the Unicode data; the probe below checks them against ICU. */
const SB_OF = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  SB_OF[c] =
    c === 0x0a || c === 0x0d
      ? SB.ParaSep
      : c === 0x09 || c === 0x0b || c === 0x0c || c === 0x20 || c === 0xa0
        ? SB.Sp
        : /[a-zß-öø-ÿ]/.test(ch)
          ? SB.Lower
          : /[A-ZÀ-ÖØ-Þ]/.test(ch)
            ? SB.Upper
            : /[0-9]/.test(ch)
              ? SB.Numeric
              : ch === "."
                ? SB.ATerm
                : ch === "!" || ch === "?"
                  ? SB.STerm
                  : "\"'()[]{}«»".includes(ch)
                    ? SB.Close
                    : ",-:;".includes(ch)
                      ? SB.SContinue
                      : SB.Other;
}
/** The punctuation beyond Latin-1 that prose carries: curly quotes close, dashes continue. */
const SB_PUNCTUATION = new Map<number, SB>([
  [0x2018, SB.Close],
  [0x2019, SB.Close],
  [0x201c, SB.Close],
  [0x201d, SB.Close],
  [0x2013, SB.SContinue],
  [0x2014, SB.SContinue],
  [0x2026, SB.Other],
]);

const sbAt = (text: string, i: number): SB => {
  const c = text.charCodeAt(i);
  return c < 256 ? (SB_OF[c] as SB) : (SB_PUNCTUATION.get(c) ?? SB.Other);
};

/**
 * Where the sentence that holds the terminator at `i` ends, by the rules that follow a terminator
 * (SB6-SB11), or -1 when no break follows it: a break falls after the terminator's closing
 * punctuation, spaces and one paragraph separator, unless a number follows the full stop (SB6),
 * an upper-case letter follows a full stop after a letter (SB7), a lower-case letter comes first
 * after a full stop (SB8), or a continuation or another terminator follows (SB8a).
 */
function sentenceEndAfter(text: string, i: number): number {
  const term = sbAt(text, i);
  let j = i + 1;
  if (term === SB.ATerm) {
    const next = sbAt(text, j);
    if (next === SB.Numeric) return -1;
    const before = i > 0 ? sbAt(text, i - 1) : SB.Other;
    if ((before === SB.Upper || before === SB.Lower) && next === SB.Upper) return -1;
  }
  while (j < text.length && sbAt(text, j) === SB.Close) j++;
  while (j < text.length && sbAt(text, j) === SB.Sp) j++;
  if (j >= text.length) return text.length;
  const after = sbAt(text, j);
  if (after === SB.ParaSep) return text.charCodeAt(j) === 0x0d && text.charCodeAt(j + 1) === 0x0a ? j + 2 : j + 1;
  if (after === SB.SContinue || after === SB.ATerm || after === SB.STerm) return -1;
  if (term === SB.ATerm) {
    let k = j;
    for (; k < text.length; k++) {
      const c = sbAt(text, k);
      if (c === SB.Upper || c === SB.Lower || c === SB.ParaSep || c === SB.ATerm || c === SB.STerm) break;
    }
    if (sbAt(text, k) === SB.Lower && k < text.length) return -1;
  }
  return j;
}

/**
 * UAX #29 sentences over ASCII, Latin-1 and prose punctuation (what the word fast path reads), in one scan: a break after each paragraph separator (CR LF
 * together, SB3/4) and where sentenceEndAfter says after a terminator. Counts the sentences that
 * hold a letter or digit, as countSegmentedSentences does.
 */
function countLatinSentences(text: string): number {
  let n = 0;
  let alnum = false;
  let i = 0;
  while (i < text.length) {
    const c = sbAt(text, i);
    let end = -1;
    if (c === SB.Lower || c === SB.Upper || c === SB.Numeric) alnum = true;
    else if (c === SB.ParaSep) end = text.charCodeAt(i) === 0x0d && text.charCodeAt(i + 1) === 0x0a ? i + 2 : i + 1;
    else if (c === SB.ATerm || c === SB.STerm) end = sentenceEndAfter(text, i);
    if (end === -1) {
      i++;
      continue;
    }
    if (alnum) n++;
    alnum = false;
    i = end;
  }
  return alnum ? n + 1 : n;
}

let latinSentencesAgree: boolean | undefined;

/**
 * Whether this runtime's ICU segments sentences as countLatinSentences says, on probes of every
 * rule and of every character the fast path reads after a terminator; if not, it stays off.
 */
export function latinSentenceFastPathAgrees(): boolean {
  if (latinSentencesAgree === undefined) {
    const probes = [
      "Hello. World.",
      "It costs 3.14 now. Then 2.",
      "U.S.A. Today we go.",
      "e.g. this one. And that.",
      "Wait... what? Yes!! No?!",
      'He said "Stop." Then left.',
      "(A note.) Next one.",
      "Done.\r\nNext\rline\nend",
      "Etc. lower case goes on. Ok",
      "Item 1, item 2; end: yes - no.",
      "Mr. Smith. 123. ... .",
    ];
    const after = [...SB_PUNCTUATION.keys()].map((c) => String.fromCharCode(c));
    for (let c = 0x20; c < 0x100; c++) if (!BEYOND_LATIN.test(String.fromCharCode(c))) after.push(String.fromCharCode(c));
    for (const ch of after) {
      probes.push(`A.${ch}b c.`, `A. ${ch}b c.`, `a!${ch}B c`, `a? ${ch} B`, `x.)${ch}y`, `1.${ch}2`);
    }
    latinSentencesAgree = probes.every((probe) => countLatinSentences(probe) === countSegmentedSentences(probe));
  }
  return latinSentencesAgree;
}
