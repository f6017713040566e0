/**
 * Finding words and phrases in a text, for the checks that look for them (contains, bannedWords,
 * startsWith, endsWith): Unicode case folding, and whole-word matching that knows which scripts
 * separate their words with spaces. Plain string work: linear in the text for a given needle.
 */

/**
 * Case folding for comparison: upper case, then lower case, both with the full Unicode mappings,
 * so "ß" matches "SS", final sigma matches sigma, and "ǅ" matches "ǆ".
 */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase();
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;
// Scripts written without spaces between words: a match inside them has no word boundary to
// test, so whole-word matching does not ask for one.
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;

/** The code point that starts at `index`, as a string ("" past the end). */
function charAt(text: string, index: number): string {
  const code = text.codePointAt(index);
  return code === undefined ? "" : String.fromCodePoint(code);
}

/** The code point that ends just before `index`, as a string ("" at the start). */
function charBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(index - 2, index);
  }
  return text.slice(index - 1, index);
}

/** Whether a character belongs to a word of a space-separated script. */
function isSpacedWordChar(char: string): boolean {
  return char !== "" && WORD_CHAR.test(char) && !UNSPACED_SCRIPT.test(char);
}

/** A needle prepared for repeated searches: which of its ends need a word boundary. */
export interface Needle {
  text: string;
  boundaryBefore: boolean;
  boundaryAfter: boolean;
}

/** Prepares a needle; `wholeWord` asks for word boundaries where the needle starts or ends with a word character. */
export function needle(text: string, wholeWord: boolean): Needle {
  return {
    text,
    boundaryBefore: wholeWord && isSpacedWordChar(charAt(text, 0)),
    boundaryAfter: wholeWord && isSpacedWordChar(charBefore(text, text.length)),
  };
}

/**
 * Index of the first occurrence of the needle in the text (whole words only when the needle was
 * prepared so), or -1. An empty needle is never found.
 */
export function findNeedle(text: string, n: Needle): number {
  if (n.text === "") return -1;
  let from = 0;
  for (;;) {
    const at = text.indexOf(n.text, from);
    if (at < 0) return -1;
    const end = at + n.text.length;
    const startOk = !n.boundaryBefore || !isSpacedWordChar(charBefore(text, at));
    const endOk = !n.boundaryAfter || !isSpacedWordChar(charAt(text, end));
    if (startOk && endOk) return at;
    from = at + 1;
  }
}
