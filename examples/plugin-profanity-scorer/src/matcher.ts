/**
 * Finds listed words in a text the way people write them to slip past a list: any case, accents
 * (fück), digits and symbols for letters (sh1t, a$$), stretched letters (fuuuck), masked letters
 * (f*ck), and inflections (fucking, shitty, bitches). Matching is by whole token, so words that
 * merely contain a listed word (Scunthorpe, assassin, hello) never match.
 *
 * The scan is linear in the text: one pass of a fixed pattern for tokens, then a few map lookups
 * per token.
 */

/** One occurrence of a listed word. */
export interface WordMatch {
  /** The listed word it matched. */
  word: string;
  /** The token as written. */
  text: string;
  /** UTF-16 offset of the token in the text. */
  index: number;
  severity: number;
}

// Letters, marks, digits and the symbols that stand in for letters or mask them.
const TOKEN = /[\p{L}\p{M}\p{N}@$*]+/gu;
const LETTER = /\p{L}/u;
const MARKS = /\p{M}+/gu;
const STRETCHED = /(.)\1{2,}/gu;
const STRETCH = /(.)\1{2,}/u;
const SUBSTITUTE = /[013457@$]/;
const SUBSTITUTES = /[013457@$]/g;
const ASCII = /^[\x20-\x7e]*$/;
const LEET: Readonly<Record<string, string>> = { "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", $: "s" };
const SUFFIXES = ["s", "es", "ed", "er", "ers", "ing", "in", "y", "head", "heads", "face"];
// Suffixes after which a final consonant is often doubled: shitty, crapped.
const DOUBLING = new Set(["y", "ed", "er", "ers", "ing", "in"]);

/** A word list prepared for matching. */
export class WordMatcher {
  readonly #words = new Map<string, number>();
  readonly #byLength = new Map<number, string[]>();
  /** The first two letters of every listed word: most tokens start otherwise and are done. */
  readonly #starts = new Set<string>();

  constructor(words: Iterable<[string, number]>) {
    for (const [word, severity] of words) {
      const key = fold(word);
      if (!key) continue;
      this.#words.set(key, severity);
      this.#starts.add(key.slice(0, 2));
      const list = this.#byLength.get(key.length) ?? [];
      list.push(key);
      this.#byLength.set(key.length, list);
    }
  }

  /** Every occurrence of a listed word, in text order. */
  find(text: string): WordMatch[] {
    const matches: WordMatch[] = [];
    for (const token of text.matchAll(TOKEN)) {
      // Markdown emphasis (**word**) is not masking.
      const raw = token[0];
      const start = raw.length - raw.replace(/^\*+/, "").length;
      const written = raw.slice(start).replace(/\*+$/, "");
      if (!LETTER.test(written)) continue;
      const hit = this.#match(written);
      if (hit) matches.push({ word: hit.word, text: written, index: (token.index ?? 0) + start, severity: hit.severity });
    }
    return matches;
  }

  #match(written: string): { word: string; severity: number } | undefined {
    let form = fold(written);
    if (SUBSTITUTE.test(form)) form = form.replace(SUBSTITUTES, (c) => LEET[c] ?? c);
    // Stretched letters: try runs of three or more as two letters (ass) and as one (fuck).
    const forms = STRETCH.test(form) ? [form, form.replace(STRETCHED, "$1$1"), form.replace(STRETCHED, "$1")] : [form];
    let best: { word: string; severity: number } | undefined;
    for (const candidate of forms) {
      if (!this.#starts.has(candidate.slice(0, 2)) && !candidate.includes("*")) continue;
      for (const stem of stems(candidate)) {
        const hit = this.#lookup(stem);
        if (hit && (!best || hit.severity > best.severity)) best = hit;
      }
    }
    return best;
  }

  #lookup(form: string): { word: string; severity: number } | undefined {
    const severity = this.#words.get(form);
    if (severity !== undefined) return { word: form, severity };
    if (!form.includes("*")) return undefined;
    // A masked word: at least two letters shown, the first among them, the rest in place.
    const shown = form.replace(/\*/g, "").length;
    if (shown < 2 || form[0] === "*") return undefined;
    let best: { word: string; severity: number } | undefined;
    for (const word of this.#byLength.get(form.length) ?? []) {
      let same = true;
      for (let i = 0; i < form.length && same; i++) same = form[i] === "*" || form[i] === word[i];
      const wordSeverity = this.#words.get(word) as number;
      if (same && (!best || wordSeverity > best.severity)) best = { word, severity: wordSeverity };
    }
    return best;
  }
}

/** Lower case without accents. */
export function fold(word: string): string {
  // Most words are plain ASCII, which needs no normalisation.
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize("NFKD").replace(MARKS, "").toLowerCase();
}

/** The form itself and what it could be an inflection of. */
function stems(form: string): string[] {
  const out = [form];
  for (const suffix of SUFFIXES) {
    if (form.length <= suffix.length + 2 || !form.endsWith(suffix)) continue;
    const stem = form.slice(0, -suffix.length);
    out.push(stem);
    if (DOUBLING.has(suffix) && stem.length > 3 && stem.at(-1) === stem.at(-2)) out.push(stem.slice(0, -1));
  }
  return out;
}

/** The text with each match masked after its first letter (`shit` → `s***`). */
export function maskMatches(text: string, matches: readonly WordMatch[]): string {
  let out = "";
  let at = 0;
  for (const match of matches) {
    const [first = "", ...rest] = Array.from(match.text);
    out += text.slice(at, match.index) + first + "*".repeat(rest.length);
    at = match.index + match.text.length;
  }
  return out + text.slice(at);
}
