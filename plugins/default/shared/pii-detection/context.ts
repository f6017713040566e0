/**
 * Words just before a number that say what it is: "call", "phone" and "fax" announce a phone
 * number, "order", "invoice" and "ISBN" announce something else. Plain string scanning over a short
 * look-back on the same line.
 */

/** What the words before a position announce. */
export type Announcement = "phone" | "other" | "none";

const LOOKBACK = 32;
const PHONE_WORDS = ["phone", "tel", "call", "mobile", "cell", "fax", "whatsapp", "sms", "text me", "dial", "contact", "reach"];
const OTHER_WORDS = [
  "order",
  "invoice",
  "isbn",
  "ref",
  "sku",
  "tracking",
  "serial",
  "account",
  "acct",
  "id",
  "ticket",
  "case",
  "transaction",
  "version",
  "build",
  "patent",
  "zip",
  "postcode",
  "routing",
  "receipt",
  "confirmation",
  "booking",
  "part",
  "model",
  "lot",
  "batch",
  "item",
  "policy",
  "claim",
  "doi",
  "issn",
];

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** Last position of `word` as a whole word (or word prefix, for "tel" in "telephone") in `text`. */
function lastWordAt(text: string, word: string): number {
  let at = text.lastIndexOf(word);
  while (at >= 0) {
    if (at === 0 || !isLetter(text.charCodeAt(at - 1))) return at;
    at = at === 0 ? -1 : text.lastIndexOf(word, at - 1);
  }
  return -1;
}

/** What the words on the same line, a short way before `start`, announce; the nearest word wins. */
export function announcedBefore(text: string, start: number): Announcement {
  let from = start;
  const limit = Math.max(0, start - LOOKBACK);
  while (from > limit && text[from - 1] !== "\n") from--;
  const before = text.slice(from, start).toLowerCase();
  if (before.endsWith("#") || before.endsWith("# ") || before.endsWith("no. ") || before.endsWith("nr. ")) return "other";
  let phone = -1;
  for (const word of PHONE_WORDS) phone = Math.max(phone, lastWordAt(before, word));
  let other = -1;
  for (const word of OTHER_WORDS) other = Math.max(other, lastWordAt(before, word));
  if (phone < 0 && other < 0) return "none";
  return phone > other ? "phone" : "other";
}

const NUMBERING_WORDS = [
  "version",
  "release",
  "ver",
  "ver.",
  "build",
  "firmware",
  "v.",
  "section",
  "chapter",
  "clause",
  "figure",
  "fig.",
  "table",
  "step",
  "article",
  "rule",
  "paragraph",
  "§",
];

/**
 * Whether the text just before `start` says that a dotted number is a version or a section number
 * (`v1.2.3.4`, `version 4.2.1.0`, `section 4.2.1.3`).
 */
export function versionBefore(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 12), start).toLowerCase();
  if (before.endsWith("v")) return true;
  let trimmed = before.trimEnd();
  if (trimmed.endsWith(":")) trimmed = trimmed.slice(0, -1);
  return NUMBERING_WORDS.some(
    (w) => trimmed.endsWith(w) && (trimmed.length === w.length || !isLetter(trimmed.charCodeAt(trimmed.length - w.length - 1))),
  );
}
