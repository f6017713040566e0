/**
 * What of a request or response body the request log keeps: the body itself up to a size, else
 * the start of its JSON text marked as truncated, else (a body that cannot be serialised) nothing
 * but a note saying why. A record is always written; only the body may be cut or left out.
 */

/** Default cap of each logged body, in bytes of its JSON text. */
export const DEFAULT_LOG_BODY_MAX_BYTES = 64 * 1024;

/** A body as the log keeps it. */
export interface KeptBody {
  /** The body, or the start of its JSON text when it was cut; absent when it could not be kept. */
  body?: unknown;
  /** Why the body is not kept whole, when it is not. */
  note?: string;
}

/** The first `maxBytes` bytes of a UTF-8 text, never cutting a character in two. */
function utf8Prefix(text: string, maxBytes: number): string {
  // A prefix of `maxBytes` characters holds at least `maxBytes` bytes: encode no more than that.
  let chars = Math.min(maxBytes, text.length);
  const last = text.charCodeAt(chars - 1);
  if (last >= 0xd800 && last <= 0xdbff) chars--;
  const bytes = Buffer.from(text.slice(0, chars), "utf8");
  if (bytes.length <= maxBytes) return bytes.toString("utf8");
  let end = maxBytes;
  // A continuation byte (10xxxxxx) belongs to the character before the cut.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/** The body to log, capped at `maxBytes` of JSON text. */
export function keptBody(body: unknown, maxBytes: number): KeptBody {
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch (error) {
    return { note: `not kept: it cannot be serialised (${(error as Error).message})` };
  }
  if (text === undefined) return {};
  const size = Buffer.byteLength(text, "utf8");
  if (size <= maxBytes) return { body };
  return { body: utf8Prefix(text, maxBytes), note: `truncated: ${size} bytes of JSON, the first ${maxBytes} kept as text` };
}
