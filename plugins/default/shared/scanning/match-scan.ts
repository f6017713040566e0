/**
 * Linear scanning of a text with RE2 patterns of bounded match length.
 *
 * Both RE2 builds have traps on long texts: `re2-wasm` copies the whole string into WASM memory at
 * every `exec`, so a global match loop over a long text is quadratic (16,667 matches in 100 KB took
 * 44 s), and it reports indices in code points rather than UTF-16 units; the native binding
 * misreports `lastIndex` when the text holds astral characters. So scanners here
 * (1) run on a copy of the text in which every surrogate is replaced by U+FFFD, which keeps every
 * position and makes code points and UTF-16 units the same thing, and (2) run each pattern over
 * windows of 1 KB or four times the longest possible match, each overlapping its neighbours by more
 * than that match, so every `exec` sees a bounded string and the total cost is linear in the text
 * whichever build runs.
 */
import { compileRegex, type Regex } from "../../../../core/index.js";

/** Own region of a window: small, since re2-wasm copies the whole window at every exec. */
const MIN_STEP = 1_024;
const REPLACEMENT = "\uFFFD";

/** A match of a scan: its position in the text and its capture groups. */
export interface ScanMatch {
  /** Offset of the match in the text (UTF-16 units). */
  index: number;
  /** The matched text, as in the scanned copy. */
  text: string;
  /** Numbered captures (index 0 is the whole match). */
  groups: ReadonlyArray<string | undefined>;
}

/**
 * The text with every surrogate code unit replaced by U+FFFD: same length, same positions, no
 * astral characters (the text itself when it has none). Patterns that never match U+FFFD find the
 * same things in both.
 */
export function scannableText(text: string): string {
  let first = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      first = i;
      break;
    }
  }
  if (first < 0) return text;
  const parts: string[] = [text.slice(0, first)];
  let runStart = first;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      if (runStart < i) parts.push(text.slice(runStart, i));
      parts.push(REPLACEMENT);
      runStart = i + 1;
    }
  }
  parts.push(text.slice(runStart));
  return parts.join("");
}

/** Compiles a scanner pattern (always global: the scan relies on `lastIndex`). */
export function scanPattern(pattern: string, flags = ""): Regex {
  return compileRegex(pattern, flags.includes("g") ? flags : `${flags}g`);
}

/**
 * Calls `onMatch` for every match of a global pattern, left to right and without overlaps, as a
 * global `exec` loop over the whole text would. `text` must come from `scannableText`;
 * `maxLength` must bound the length of any match of the pattern (the patterns here use bounded
 * repetition), and one character of look-around on each side is honoured (`\b`).
 */
export function forEachMatch(regex: Regex, text: string, maxLength: number, onMatch: (match: ScanMatch) => void): void {
  const context = maxLength + 1;
  const step = Math.max(MIN_STEP, 4 * maxLength);
  let consumed = 0;
  try {
    for (let own = 0; own < text.length; own += step) {
      const ownEnd = Math.min(text.length, own + step);
      const windowStart = Math.max(0, own - context);
      const windowEnd = Math.min(text.length, ownEnd + context);
      const window = windowStart === 0 && windowEnd === text.length ? text : text.slice(windowStart, windowEnd);
      regex.lastIndex = Math.max(own, consumed) - windowStart;
      for (let m = regex.exec(window); m !== null; m = regex.exec(window)) {
        const index = windowStart + m.index;
        if (index >= ownEnd) break;
        if (m[0].length === 0) {
          regex.lastIndex = m.index + 1;
          continue;
        }
        consumed = index + m[0].length;
        onMatch({ index, text: m[0], groups: m });
      }
    }
  } finally {
    regex.lastIndex = 0;
  }
}
