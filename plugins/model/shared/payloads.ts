/**
 * Encoded payloads inside a text: base64 and hex runs that decode to readable UTF-8 text, so a
 * classifier can score what an attacker hid in them. One regex pass; decoding is bounded by the
 * text's own length.
 */

/** A decoded payload: where it stood in the text, its encoding and the text inside. */
export interface Payload {
  start: number;
  end: number;
  encoding: "base64" | "hex";
  text: string;
}

// A run is tried from its first character only (the lookbehind): retrying from every later
// character of a short word costs time quadratic in the word's length and never matches.
const BASE64 = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX = /(?:\\x|0x)?(?:[0-9a-fA-F]{2}(?:[\s:,]|\\x|0x)?){12,}/g;
const MAX_PAYLOADS = 32;
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The decoded bytes as text when they read as text: valid UTF-8, mostly printable, with letters. */
function readable(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  let printable = 0;
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 || c === 0x0a || c === 0x0d || c === 0x09) printable++;
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c > 0x7f) letters++;
  }
  return text.length >= 4 && printable >= text.length * 0.95 && letters >= text.length * 0.5 ? text : undefined;
}

/** The base64 and hex payloads of a text that decode to readable text (at most 32). */
export function findPayloads(text: string): Payload[] {
  const found: Payload[] = [];
  for (const match of text.matchAll(BASE64)) {
    if (found.length >= MAX_PAYLOADS) return found;
    const run = match[0];
    // A run of letters only (a long word, an identifier) is not worth decoding.
    if (!/[0-9+/=_-]/.test(run) && !/[A-Z].*[a-z].*[A-Z]/.test(run)) continue;
    const decoded = readable(Buffer.from(run.replace(/-/g, "+").replace(/_/g, "/"), "base64"));
    if (decoded !== undefined)
      found.push({ start: match.index, end: match.index + run.length, encoding: "base64", text: decoded });
  }
  for (const match of text.matchAll(HEX)) {
    if (found.length >= MAX_PAYLOADS) return found;
    const digits = match[0].replace(/\\x|0x|[\s:,]/g, "");
    if (digits.length % 2 !== 0) continue;
    const decoded = readable(Buffer.from(digits, "hex"));
    if (decoded !== undefined)
      found.push({ start: match.index, end: match.index + match[0].length, encoding: "hex", text: decoded });
  }
  return found;
}
