/**
 * The cursor of a log page: a position in the newest-first order, opaque to callers. Apart from
 * the log types so that those stay free of runtime dependencies (the console type-checks them).
 */

/** Encodes a position in the newest-first order as an opaque cursor. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id]), "utf8").toString("base64url");
}

/** Decodes a cursor; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): { created_at: string; id: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string") {
      return { created_at: value[0], id: value[1] };
    }
  } catch {
    // Not base64 JSON: fall through.
  }
  return undefined;
}
