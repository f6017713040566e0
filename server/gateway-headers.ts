/**
 * The gateway's own header names (spec §5), how one value is read, and which headers checks may
 * see. Every stage reads these, from auth to the answer, so they sit below all of them.
 */
import type { IncomingHttpHeaders } from "node:http";

/** Header names, lower-case as Node gives them. */
export const HEADER = {
  apiKey: "x-gateway-api-key",
  config: "x-gateway-config",
  metadata: "x-gateway-metadata",
  strictCompliance: "x-gateway-strict-compliance",
  provider: "x-gateway-provider",
  virtualKey: "x-gateway-virtual-key",
  customHost: "x-gateway-custom-host",
  requestId: "x-gateway-request-id",
  cacheStatus: "x-gateway-cache-status",
  /** The workspace an organization admin key evaluates hooks in (the console's "try it"). */
  workspace: "x-gateway-workspace",
  /** Marks a hook evaluation the console's "try it" sent, so its log record says so. */
  tryIt: "x-gateway-try-it",
} as const;

/** Headers that carry credentials: never shown to checks, never logged. */
export const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", HEADER.apiKey, "cookie", "proxy-authorization"]);

/** One value of a header; the first when it was repeated. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The headers checks may read: credentials removed, except `authorization` when it is not a
 * provider credential (a slug or the mock is used), so a check can verify a caller's token.
 */
export function checkHeaders(headers: IncomingHttpHeaders, keepAuthorization: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (CREDENTIAL_HEADERS.has(name) && !(keepAuthorization && name === "authorization")) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
