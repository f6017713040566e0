/**
 * The high-entropy rule: token-like strings that look random enough to be credentials although no
 * specific rule names their format. Plain string scanning, linear in the text.
 *
 * A token is a maximal run of base64/base64url characters (letters, digits, `+ / _ - =`). It is
 * reported when its Shannon entropy (bits per character, over its own character frequencies) is
 * high and one of two situations holds:
 *
 * - **named**: the token is assigned to a name that announces a secret (`api_key=`, `"token": "`,
 *   `password:`, `Authorization: Bearer …`); then 16 characters and 3.0 bits suffice, so hex and
 *   short keys count;
 * - **bare**: no such name; then the token must be 24–256 characters long, mix upper case, lower
 *   case and digits, and reach 4.0 bits (random base62 of 24 characters averages about 4.3; English
 *   identifiers and paths stay under 4.0 or lack a class).
 *
 * Guards against over-reporting: a bare token made only of hex digits (git SHAs, SHA-256 sums, MD5
 * in prose) is never reported, nor a UUID; both are reported when named as a secret. Nor is a bare
 * token that reads as words: 70% or more of it in runs of three or more lower-case letters
 * (camelCase identifiers), or a slash-separated path of words. Runs longer
 * than 256 characters (base64 images, certificates, minified data) are not tokens of this rule; a
 * `data:…;base64,` payload is skipped whole.
 */

/** A high-entropy token found in a text. */
export interface EntropyFinding {
  start: number;
  end: number;
  entropy: number;
  named: boolean;
}

const MIN_NAMED = 16;
const MIN_BARE = 24;
const MAX_TOKEN = 256;
const NAMED_BITS = 3.0;
const BARE_BITS = 4.0;
/** A bare token at least this much covered by word-like runs is an identifier, not a key. */
const WORD_SHARE = 0.7;
/** How far back on the line a secret's name may stand. */
const NAME_LOOKBACK = 48;

/** Words that, as a name before an assignment, announce a secret value. */
const SECRET_NAMES = [
  "key",
  "token",
  "secret",
  "passw",
  "pwd",
  "auth",
  "credential",
  "bearer",
  "signature",
  "private",
  "session",
  "cookie",
];

function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x2b || // +
    c === 0x2f || // /
    c === 0x5f || // _
    c === 0x2d || // -
    c === 0x3d // =
  );
}

/** Letters, digits, `_`, `.` and `-`: the characters of a name like `aws.secret-key_1`. */
function isNameChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2e || c === 0x2d
  );
}

/** Shannon entropy in bits per character of a string, over its own character frequencies. */
export function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function isHex(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const hex = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
    if (!hex) return false;
  }
  return true;
}

/** 8-4-4-4-12 hex with dashes. */
function isUuid(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const dash = i === 8 || i === 13 || i === 18 || i === 23;
    if (dash !== (value[i] === "-")) return false;
  }
  return isHex(value.replaceAll("-", ""));
}

function hasClasses(value: string): { upper: boolean; lower: boolean; digit: boolean } {
  let upper = false;
  let lower = false;
  let digit = false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (c >= 0x61 && c <= 0x7a) lower = true;
    else if (c >= 0x30 && c <= 0x39) digit = true;
  }
  return { upper, lower, digit };
}

/**
 * Whether the text before `start` (same line, a short way back) ends with a secret's name and an
 * assignment, or with `Bearer `.
 */
function isNamed(text: string, start: number): boolean {
  let from = start;
  const limit = Math.max(0, start - NAME_LOOKBACK);
  while (from > limit) {
    const c = text.charCodeAt(from - 1);
    if (c === 0x0a || c === 0x0d) break;
    from--;
  }
  const before = text.slice(from, start).toLowerCase();
  if (before.endsWith("bearer ") || before.endsWith("basic ")) return true;
  // The assignment: optional quote, then `=`, `:`, `=>` or `:=`, then optional spaces and a quote.
  let i = before.length;
  while (i > 0 && (before[i - 1] === " " || before[i - 1] === "\t")) i--;
  if (i > 0 && (before[i - 1] === '"' || before[i - 1] === "'" || before[i - 1] === "`")) i--;
  while (i > 0 && (before[i - 1] === " " || before[i - 1] === "\t")) i--;
  const op = before[i - 1];
  if (op !== "=" && op !== ":") return false;
  i--;
  if (i > 0 && (before[i - 1] === ":" || before[i - 1] === "=")) i--;
  while (i > 0 && (before[i - 1] === " " || before[i - 1] === "\t")) i--;
  if (i > 0 && (before[i - 1] === '"' || before[i - 1] === "'")) i--;
  // The name: the identifier-like run that ends here.
  let nameStart = i;
  while (nameStart > 0 && isNameChar(before.charCodeAt(nameStart - 1))) nameStart--;
  const name = before.slice(nameStart, i);
  return name.length > 0 && SECRET_NAMES.some((word) => name.includes(word));
}

const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * Share of the token covered by word-like runs: three or more lower-case letters, with the capital
 * before them. CamelCase identifiers are mostly such runs (`getUserSettings2`); random base62 has
 * few, since three lower-case letters in a row come up about 7% of the time.
 */
function wordLikeShare(value: string): number {
  let covered = 0;
  let i = 0;
  while (i < value.length) {
    if (!isLower(value.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < value.length && isLower(value.charCodeAt(i))) i++;
    if (i - start >= 3) covered += i - start + (start > 0 && isUpper(value.charCodeAt(start - 1)) ? 1 : 0);
  }
  return covered / value.length;
}

/** A path of words (`src/components/NavBar2/index`): slashes between letter runs with optional trailing digits. */
function isWordPath(value: string): boolean {
  if (!value.includes("/")) return false;
  for (const segment of value.split("/")) {
    let i = 0;
    while (i < segment.length && !isDigit(segment.charCodeAt(i))) i++;
    while (i < segment.length && isDigit(segment.charCodeAt(i))) i++;
    if (i !== segment.length) return false;
  }
  return true;
}

/** Whether the run at `start` is the payload of a `data:<type>;base64,` URI (an image, say). */
function isDataUriPayload(text: string, start: number): boolean {
  return start >= 8 && text.startsWith(";base64,", start - 8);
}

/** Finds the high-entropy tokens of a text (see the module comment for the rule). */
export function findHighEntropyTokens(text: string): EntropyFinding[] {
  const found: EntropyFinding[] = [];
  let i = 0;
  while (i < text.length) {
    if (!isTokenChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && isTokenChar(text.charCodeAt(i))) i++;
    // Trailing `=` is base64 padding, trailing `-`/`/` is punctuation: not part of the value.
    let end = i;
    while (end > start && (text[end - 1] === "=" || text[end - 1] === "-" || text[end - 1] === "/")) end--;
    let begin = start;
    while (begin < end && (text[begin] === "=" || text[begin] === "-" || text[begin] === "/")) begin++;
    const length = end - begin;
    if (length < MIN_NAMED || i - start > MAX_TOKEN) continue;
    if (isDataUriPayload(text, start)) continue;
    const value = text.slice(begin, end);
    const named = isNamed(text, begin);
    const entropy = shannonEntropy(value);
    if (named) {
      if (entropy >= NAMED_BITS) found.push({ start: begin, end, entropy, named });
      continue;
    }
    if (length < MIN_BARE || isHex(value) || isUuid(value) || isWordPath(value) || wordLikeShare(value) >= WORD_SHARE) continue;
    const classes = hasClasses(value);
    if (classes.upper && classes.lower && classes.digit && entropy >= BARE_BITS) {
      found.push({ start: begin, end, entropy, named });
    }
  }
  return found;
}
