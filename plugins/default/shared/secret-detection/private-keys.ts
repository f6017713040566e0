/**
 * PEM private key blocks, found by plain string scanning: a `-----BEGIN <label>-----` line whose
 * label names a private key, through the matching `-----END <label>-----`. A block cut off before
 * its END line runs to the last line of its base64 body. Linear: the search for each label's END line
 * only ever moves forward.
 */

/** A private key block: [start, end) in the text. */
export interface KeyBlock {
  start: number;
  end: number;
}

const BEGIN = "-----BEGIN ";
const DASHES = "-----";
const MAX_LABEL = 40;
const PRIVATE_LABELS = new Set([
  "PRIVATE KEY",
  "RSA PRIVATE KEY",
  "EC PRIVATE KEY",
  "DSA PRIVATE KEY",
  "OPENSSH PRIVATE KEY",
  "ENCRYPTED PRIVATE KEY",
  "PGP PRIVATE KEY BLOCK",
]);

function isBase64(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2b || c === 0x2f || c === 0x3d
  );
}

/** Length of the line break at `at`: CR LF, LF, or the two characters of a JSON `\n` escape. */
function lineBreak(text: string, at: number): number {
  if (text.startsWith("\r\n", at)) return 2;
  if (text[at] === "\n") return 1;
  if (text.startsWith("\\n", at)) return 2;
  return 0;
}

/** End of the base64 body of a key cut off before its END line: the last line made of base64 only. */
function bodyEnd(text: string, from: number): number {
  let end = from;
  let at = from;
  for (;;) {
    const brk = lineBreak(text, at);
    if (brk === 0) return end;
    let i = at + brk;
    while (i < text.length && isBase64(text.charCodeAt(i))) i++;
    if (i === at + brk || (i < text.length && lineBreak(text, i) === 0)) return end;
    end = i;
    at = i;
  }
}

/** Finds the PEM private key blocks of a text. */
export function findPrivateKeys(text: string): KeyBlock[] {
  const blocks: KeyBlock[] = [];
  const ends = new Map<string, number>();
  let at = text.indexOf(BEGIN);
  while (at >= 0) {
    const labelStart = at + BEGIN.length;
    const labelEnd = text.indexOf(DASHES, labelStart);
    const label = labelEnd >= 0 && labelEnd - labelStart <= MAX_LABEL ? text.slice(labelStart, labelEnd) : "";
    if (!PRIVATE_LABELS.has(label)) {
      at = text.indexOf(BEGIN, labelStart);
      continue;
    }
    const bodyStart = labelEnd + DASHES.length;
    const endLine = `-----END ${label}-----`;
    let end = ends.get(label);
    if (end === undefined || (end >= 0 && end < bodyStart)) {
      end = text.indexOf(endLine, bodyStart);
      ends.set(label, end);
    }
    const blockEnd = end >= 0 ? end + endLine.length : bodyEnd(text, bodyStart);
    blocks.push({ start: at, end: blockEnd });
    at = text.indexOf(BEGIN, Math.max(blockEnd, labelStart));
  }
  return blocks;
}
