/**
 * The form the model checks read text in, so simple obfuscation does not change what they see:
 * compatibility forms folded (NFKC), case folded, accents and invisible characters removed,
 * look-alike letters of other scripts folded to Latin inside words that mix scripts, leetspeak
 * folded inside words that also hold letters, runs of white space made one space, and spaced-out
 * letters ("i g n o r e") joined. Written into a reused code-unit buffer: one pass, no per-call
 * allocation beyond the buffer's growth.
 */
import { createRequire } from "node:module";

const SPACE = 0x20;
const MARKS = /\p{M}/gu;
const LETTER = /\p{L}/u;
const NUMBER = /\p{N}/u;
const LATIN = /\p{Script=Latin}/u;
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]/u;
const WHITE = /\s/u;

/** How a character takes part in a word. */
export const enum Kind {
  /** Dropped: invisible and format characters. */
  Ignored = 0,
  Space = 1,
  /** Punctuation and symbols: kept, end a word. */
  Other = 2,
  Latin = 3,
  /** A letter of another script. */
  Foreign = 4,
  Digit = 5,
  /** `@` and `$`: leetspeak inside a word, symbols elsewhere. */
  LeetSymbol = 6,
}

/** Writing systems the gibberish model tells apart; `Other` for letters of the rest. */
export const enum Script {
  None = 0,
  Latin = 1,
  Cyrillic = 2,
  Greek = 3,
  Arabic = 4,
  Devanagari = 5,
  Thai = 6,
  /** Han, kana and Hangul: no model; never called gibberish. */
  Cjk = 7,
  Other = 8,
}

const SCRIPTS: Array<[RegExp, Script]> = [
  [/\p{Script=Latin}/u, Script.Latin],
  [/\p{Script=Cyrillic}/u, Script.Cyrillic],
  [/\p{Script=Greek}/u, Script.Greek],
  [/\p{Script=Arabic}/u, Script.Arabic],
  [/\p{Script=Devanagari}/u, Script.Devanagari],
  [/\p{Script=Thai}/u, Script.Thai],
  [/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u, Script.Cjk],
];

/** The script of a letter (or of the base letter of a mark-bearing one). */
function scriptOf(char: string): Script {
  for (const [pattern, script] of SCRIPTS) if (pattern.test(char)) return script;
  return Script.Other;
}

/** A character as the model checks read it. */
export interface Folded {
  kind: Kind;
  /** For letters and digits of words: the script (None for digits and symbols). */
  script: Script;
  /** The folded form: NFKC, case folded, marks removed. */
  text: string;
  /** The Latin look-alike, for a foreign letter that has one. */
  latin?: string;
}

const LEET: Record<string, string> = {
  "0": "o",
  "1": "l",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "9": "g",
  "@": "a",
  $: "s",
};
// Unicode's confusables table, as the unhomoglyph package ships it (one code point to its skeleton).
const CONFUSABLE = createRequire(import.meta.url)("unhomoglyph/data.json") as Record<string, string>;

function foldOne(char: string): Folded {
  if (WHITE.test(char)) return { kind: Kind.Space, script: Script.None, text: " " };
  if (IGNORABLE.test(char)) return { kind: Kind.Ignored, script: Script.None, text: "" };
  if (char === "@" || char === "$") return { kind: Kind.LeetSymbol, script: Script.None, text: char };
  const text = char.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFD").replace(MARKS, "");
  // A combining mark on its own (a vowel sign of an Indic script, Zalgo stacking) is dropped, so it does not split its word.
  if (text === "" && /^\p{M}$/u.test(char)) return { kind: Kind.Ignored, script: Script.None, text: "" };
  const first = text === "" ? char : text;
  if (/^[0-9]$/.test(first)) return { kind: Kind.Digit, script: Script.None, text: first };
  if (LETTER.test(first)) {
    if (LATIN.test(first)) return { kind: Kind.Latin, script: Script.Latin, text };
    const script = scriptOf(first);
    const look = CONFUSABLE[char] ?? CONFUSABLE[first];
    const latin = look !== undefined && /^[a-zA-Z]+$/.test(look) ? look.toLowerCase() : undefined;
    return latin === undefined ? { kind: Kind.Foreign, script, text } : { kind: Kind.Foreign, script, text, latin };
  }
  if (NUMBER.test(first)) return { kind: Kind.Digit, script: Script.None, text };
  return { kind: Kind.Other, script: Script.None, text };
}

const ASCII: Folded[] = Array.from({ length: 128 }, (_, c) => foldOne(String.fromCharCode(c)));
const cache = new Map<number, Folded>();
/** Distinct non-ASCII code points remembered; past this, folding is recomputed (still correct). */
const CACHE_LIMIT = 1 << 16;

/** How the model checks read one code point (cached). */
export function folded(cp: number): Folded {
  if (cp < 128) return ASCII[cp] as Folded;
  let entry = cache.get(cp);
  if (entry === undefined) {
    entry = foldOne(String.fromCodePoint(cp));
    if (cache.size < CACHE_LIMIT) cache.set(cp, entry);
  }
  return entry;
}

/** A growable buffer of UTF-16 code units that folding writes into. */
export class FoldBuffer {
  units = new Uint16Array(4096);
  length = 0;
  /** Code-unit offset in the source text of each written unit (for excerpts). */
  origin = new Int32Array(4096);

  /** Makes room for `extra` more units. */
  reserve(extra: number): void {
    if (this.length + extra <= this.units.length) return;
    const size = Math.max(this.units.length * 2, this.length + extra);
    const units = new Uint16Array(size);
    units.set(this.units.subarray(0, this.length));
    const origin = new Int32Array(size);
    origin.set(this.origin.subarray(0, this.length));
    this.units = units;
    this.origin = origin;
  }

  push(text: string, from: number): void {
    this.reserve(text.length);
    for (let i = 0; i < text.length; i++) {
      this.origin[this.length] = from;
      this.units[this.length++] = text.charCodeAt(i);
    }
  }

  /** The folded text between two unit offsets, as a string. */
  slice(start: number, end: number): string {
    return String.fromCharCode(...this.units.subarray(start, Math.min(end, this.length)));
  }
}

/**
 * Folds `text` (from `start` to `end`) into `out`, replacing what it held, or after it with
 * `append` (a long text folded piece by piece, each piece starting after white space). Words are
 * maximal runs of letters, digits and `@`/`$`; each word is folded as a whole once it ends.
 */
export function foldText(text: string, out: FoldBuffer, start = 0, end = text.length, append = false): void {
  if (!append) out.length = 0;
  const from = out.length;
  out.reserve(end - start + 2);
  let wordStart = -1;
  let hasLatin = false;
  let hasForeignLookAlike = false;
  let hasLetter = false;
  let hasLeet = false;
  const finishWord = (wordEnd: number) => {
    if (wordStart < 0) return;
    if ((hasLatin && hasForeignLookAlike) || (hasLetter && hasLeet))
      refoldWord(text, wordStart, wordEnd, out, hasLatin && hasForeignLookAlike, hasLetter && hasLeet);
    else for (let i = wordStart; i < wordEnd;) i = pushChar(text, i, out);
    wordStart = -1;
    hasLatin = hasForeignLookAlike = hasLetter = hasLeet = false;
  };
  let lastSpace = true;
  for (let i = start; i < end;) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const f = folded(cp);
    switch (f.kind) {
      case Kind.Ignored:
        break;
      case Kind.Latin:
      case Kind.Foreign:
      case Kind.Digit:
      case Kind.LeetSymbol:
        if (wordStart < 0) wordStart = i;
        if (f.kind === Kind.Latin) hasLatin = hasLetter = true;
        else if (f.kind === Kind.Foreign) {
          hasLetter = true;
          if (f.latin !== undefined) hasForeignLookAlike = true;
        } else if (LEET[String.fromCharCode(cp)] !== undefined) hasLeet = true;
        lastSpace = false;
        break;
      case Kind.Space:
        finishWord(i);
        if (!lastSpace) out.push(" ", i);
        lastSpace = true;
        break;
      default:
        finishWord(i);
        out.push(f.text, i);
        lastSpace = false;
    }
    i += width;
  }
  finishWord(end);
  joinSpacedLetters(out, from);
}

const isSpaceChar = (c: string | undefined) => c !== undefined && /\s/.test(c);

/**
 * Where a piece of `text` starting at `start` should end to be folded on its own with `append`,
 * about `size` characters on: after white space between two words of two characters or more, so
 * that no word and no run of spaced-out letters ("i g n o r e") is cut. Folding the pieces one
 * after the other gives what folding the whole text gives.
 */
export function foldPieceEnd(text: string, start: number, size: number): number {
  for (let end = Math.min(text.length, start + size); end < text.length; end++) {
    if (
      isSpaceChar(text[end - 1]) &&
      !isSpaceChar(text[end - 2]) &&
      !isSpaceChar(text[end - 3]) &&
      !isSpaceChar(text[end]) &&
      !isSpaceChar(text[end + 1])
    )
      return end;
  }
  return text.length;
}

/** Writes the folded form of the character at `i`; returns the index after it. */
function pushChar(text: string, i: number, out: FoldBuffer): number {
  const cp = text.codePointAt(i) as number;
  const f = folded(cp);
  if (f.kind !== Kind.Ignored) out.push(f.text, i);
  return i + (cp > 0xffff ? 2 : 1);
}

/** Writes a word with look-alikes folded to Latin and/or leetspeak folded to letters. */
function refoldWord(text: string, start: number, end: number, out: FoldBuffer, lookAlikes: boolean, leet: boolean): void {
  for (let i = start; i < end;) {
    const cp = text.codePointAt(i) as number;
    const f = folded(cp);
    const replacement =
      lookAlikes && f.latin !== undefined ? f.latin : leet && cp < 128 ? LEET[String.fromCharCode(cp)] : undefined;
    if (replacement !== undefined) out.push(replacement, i);
    else if (f.kind !== Kind.Ignored) out.push(f.text, i);
    i += cp > 0xffff ? 2 : 1;
  }
}

const isWordUnit = (u: number) =>
  u !== SPACE && !((u >= 0x21 && u <= 0x2f) || (u >= 0x3a && u <= 0x40) || (u >= 0x5b && u <= 0x60) || (u >= 0x7b && u <= 0x7e));

/** Separators that spell a word out letter by letter: "i g n o r e", "i.g.n.o.r.e", "i-g-n-o-r-e". */
const isSpacer = (u: number) => u === SPACE || u === 0x2e || u === 0x2d || u === 0x5f || u === 0x2a;

/**
 * Joins runs of at least four single characters separated by one spacer each ("i g n o r e"), in
 * place from unit `from` on: the spacing trick splits words so that no word n-gram matches.
 */
function joinSpacedLetters(out: FoldBuffer, from: number): void {
  const u = out.units;
  const o = out.origin;
  const n = out.length;
  const single = (j: number) =>
    isWordUnit(u[j] as number) && (j === 0 || !isWordUnit(u[j - 1] as number)) && (j + 1 >= n || !isWordUnit(u[j + 1] as number));
  let w = from;
  let i = from;
  while (i < n) {
    if (single(i)) {
      let last = i;
      let count = 1;
      while (last + 2 < n && isSpacer(u[last + 1] as number) && single(last + 2)) {
        last += 2;
        count++;
      }
      if (count >= 4) {
        for (let k = i; k <= last; k += 2) {
          u[w] = u[k] as number;
          o[w++] = o[k] as number;
        }
        i = last + 1;
        continue;
      }
    }
    u[w] = u[i] as number;
    o[w++] = o[i] as number;
    i++;
  }
  out.length = w;
}
