/**
 * The metadata a request hands to checks: an object of strings, from `x-gateway-metadata` on the
 * inference routes, from the body on the hook routes. One reading for all of them; only what is
 * done with a value that is not a string differs (refused, or dropped for the peer's webhook).
 */
import { GatewayError } from "../errors.js";
import { HEADER } from "../gateway-headers.js";

/**
 * `value` as metadata. Strict: anything but an object of strings is a 400 naming `where` and the
 * key. Lenient (the peer may post other values): values that are not strings are dropped.
 */
export function metadataOf(value: unknown, where: string, strict: boolean): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    if (strict) throw new GatewayError("invalid_metadata", `${where}: must be a JSON object of strings`);
    return {};
  }
  const entries = value as Record<string, unknown>;
  let kept: Record<string, string> | undefined;
  for (const key in entries) {
    if (typeof entries[key] === "string") continue;
    if (strict) {
      throw new GatewayError("invalid_metadata", `${where}.${key}: must be a string, not ${typeof entries[key]}`);
    }
    kept = {};
    break;
  }
  if (!kept) return entries as Record<string, string>;
  for (const key in entries) if (typeof entries[key] === "string") kept[key] = entries[key] as string;
  return kept;
}

/** `x-gateway-metadata`: JSON text of an object of strings; empty or absent is none. */
export function metadataHeader(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new GatewayError("invalid_metadata", `${HEADER.metadata}: is not valid JSON: ${(error as Error).message}`);
  }
  return metadataOf(parsed, HEADER.metadata, true);
}
