/**
 * JSON Web Tokens, found by plain string scanning: `eyJ` (base64url of `{"`), a base64url header,
 * a dot, a payload starting `eyJ`, a dot and an optional signature. The header must decode to JSON
 * naming an `alg`, which rules out look-alikes. Linear: the scan never goes back.
 */

/** A JWT's place in the text. */
export interface TokenSpan {
  start: number;
  end: number;
}

const MIN_SEGMENT = 4;

function isUrlSafe(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f;
}

/** End of the base64url run starting at `from`. */
function runEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isUrlSafe(text.charCodeAt(i))) i++;
  return i;
}

/** Whether a base64url segment decodes to a JSON object with a string `alg`. */
function isJwtHeader(segment: string): boolean {
  try {
    const parsed = JSON.parse(Buffer.from(segment, "base64url").toString("utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null && typeof (parsed as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

/** Finds the JWTs of a text. */
export function findJwts(text: string): TokenSpan[] {
  const found: TokenSpan[] = [];
  let at = text.indexOf("eyJ");
  while (at >= 0) {
    const headerEnd = runEnd(text, at);
    let next = headerEnd;
    const standsAlone = at === 0 || !isUrlSafe(text.charCodeAt(at - 1));
    if (standsAlone && headerEnd - at >= MIN_SEGMENT + 3 && text[headerEnd] === "." && text.startsWith("eyJ", headerEnd + 1)) {
      const payloadEnd = runEnd(text, headerEnd + 1);
      next = payloadEnd;
      if (payloadEnd - headerEnd - 1 >= MIN_SEGMENT && text[payloadEnd] === "." && isJwtHeader(text.slice(at, headerEnd))) {
        const end = runEnd(text, payloadEnd + 1);
        found.push({ start: at, end });
        next = end;
      }
    }
    at = text.indexOf("eyJ", Math.max(next, at + 1));
  }
  return found;
}
