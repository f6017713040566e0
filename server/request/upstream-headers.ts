/**
 * The headers that cross to the upstream and back: the client's headers a provider's format
 * forwards, and the upstream's headers worth passing back. Credentials are added by the provider.
 */
import type { IncomingHttpHeaders } from "node:http";
import { FORMAT_LIST, FORMATS, type FormatName } from "../formats/index.js";
import { headerValue } from "../gateway-headers.js";

/** Client headers passed to the upstream, whatever the provider's format; its credential headers are added separately. */
const FORWARDED = FORMAT_LIST.flatMap((format) => format.forwardedHeaders);
/** Forwarded with the caller's own credential: the above and the headers that select the caller's account. */
const FORWARDED_WITH_CALLER_CREDENTIAL = [...FORWARDED, ...FORMAT_LIST.flatMap((format) => format.forwardedWithCallerCredential)];

/** The headers of an upstream call. */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  provider: { format?: FormatName; headers: Record<string, string>; slug?: string },
  stream: boolean,
): Record<string, string> {
  const out: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
    "accept-encoding": "identity",
  };
  const names = provider.slug ? FORWARDED : FORWARDED_WITH_CALLER_CREDENTIAL;
  for (const name of names) {
    const value = headerValue(headers, name);
    if (value) out[name] = value;
  }
  const defaults = provider.format ? FORMATS[provider.format].upstreamDefaults : {};
  for (const [name, value] of Object.entries(defaults)) if (!out[name]) out[name] = value;
  return Object.assign(out, provider.headers);
}

/** Upstream response headers worth passing back: request ids, rate limits, Retry-After. */
export function passedBackHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (name === "retry-after" || FORMAT_LIST.some((format) => format.passesBack(name))) {
      out[name] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return out;
}
