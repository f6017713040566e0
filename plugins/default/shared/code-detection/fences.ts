/**
 * Fenced code blocks (CommonMark): a line of three or more backticks or tildes, indented at most
 * three spaces, opens a block; a line of the same character, at least as long, closes it; an
 * unclosed block runs to the end. The info string's first word is the tag (`python`,
 * `{.python}`, `language-python`, `python title="x"`, `python:app.py`).
 */

/** A fenced block: its tag (lower case, "" when none) and its lines (0-based, content only). */
export interface Fence {
  tag: string;
  /** Line of the opening fence. */
  openLine: number;
  /** First and last content line (last < first for an empty block). */
  firstLine: number;
  lastLine: number;
}

/** The fence character and length of an opening or closing line, or undefined. */
function fenceOf(line: string): { char: string; length: number; rest: string } | undefined {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  const char = line[i];
  if (char !== "`" && char !== "~") return undefined;
  let j = i;
  while (line[j] === char) j++;
  if (j - i < 3) return undefined;
  const rest = line.slice(j);
  // A backtick fence's info string may not contain backticks (that is inline code).
  if (char === "`" && rest.includes("`")) return undefined;
  return { char, length: j - i, rest };
}

/** The tag of an info string. */
export function tagOf(info: string): string {
  let word = info.trim();
  for (let i = 0; i < word.length; i++) {
    if (word[i] === " " || word[i] === "\t") {
      word = word.slice(0, i);
      break;
    }
  }
  if (word.startsWith("{")) word = word.slice(1);
  if (word.startsWith(".")) word = word.slice(1);
  for (const stop of ["}", ","]) {
    const at = word.indexOf(stop);
    if (at >= 0) word = word.slice(0, at);
  }
  if (word.toLowerCase().startsWith("language-")) word = word.slice("language-".length);
  const colon = word.indexOf(":");
  if (colon > 0) word = word.slice(0, colon);
  return word.toLowerCase();
}

/** Finds the fenced blocks of a text split in lines. */
export function findFences(lines: readonly string[]): Fence[] {
  const fences: Fence[] = [];
  let open: { char: string; length: number; tag: string; line: number } | undefined;
  for (let n = 0; n < lines.length; n++) {
    const fence = fenceOf(lines[n] as string);
    if (!open) {
      if (fence) open = { char: fence.char, length: fence.length, tag: tagOf(fence.rest), line: n };
      continue;
    }
    if (fence && fence.char === open.char && fence.length >= open.length && fence.rest.trim() === "") {
      fences.push({ tag: open.tag, openLine: open.line, firstLine: open.line + 1, lastLine: n - 1 });
      open = undefined;
    }
  }
  if (open) fences.push({ tag: open.tag, openLine: open.line, firstLine: open.line + 1, lastLine: lines.length - 1 });
  return fences;
}
