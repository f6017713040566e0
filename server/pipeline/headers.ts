/**
 * The gateway's request headers (spec §5), read once per request, and the headers that
 * cross to the upstream and back. Credentials never reach checks or logs.
 */
import type { IncomingHttpHeaders } from "node:http";
import { GatewayError } from "../errors.js";
import { FORMAT_LIST, FORMATS, type FormatName } from "../formats/index.js";
import type { CallerCredentials, HeaderProviderSettings } from "../providers/resolve.js";

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
} as const;

/** The spec's legacy header, as written there (spec §5). */
const LEGACY_VIRTUAL_KEY = "virtual_key";

/** Headers that carry credentials: never shown to checks, never logged. */
export const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", HEADER.apiKey, "cookie", "proxy-authorization"]);

/** One value of a header; the first when it was repeated. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `x-gateway-metadata`: a JSON object of strings, handed to checks. */
export function parseMetadata(value: string | undefined): Record<string, string> {
  if (value === undefined || value.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new GatewayError("invalid_metadata", `${HEADER.metadata}: is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new GatewayError("invalid_metadata", `${HEADER.metadata}: must be a JSON object of strings`);
  }
  for (const [key, item] of Object.entries(parsed)) {
    if (typeof item !== "string") {
      throw new GatewayError("invalid_metadata", `${HEADER.metadata}.${key}: must be a string, not ${typeof item}`);
    }
  }
  return parsed as Record<string, string>;
}

/** Strict compliance is on unless the header says `false` (spec §5, §6). */
export function strictCompliance(headers: IncomingHttpHeaders): boolean {
  const value = headerValue(headers, HEADER.strictCompliance)?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "true") return true;
  if (value === "false") return false;
  throw new GatewayError("invalid_header", `${HEADER.strictCompliance}: must be true or false`);
}

/** Provider settings carried by headers. */
export function headerProviderSettings(headers: IncomingHttpHeaders): HeaderProviderSettings {
  const settings: HeaderProviderSettings = {};
  const provider = headerValue(headers, HEADER.provider)?.trim();
  const virtualKey = (headerValue(headers, HEADER.virtualKey) ?? headerValue(headers, LEGACY_VIRTUAL_KEY))?.trim();
  const customHost = headerValue(headers, HEADER.customHost)?.trim();
  if (provider) settings.provider = provider;
  if (virtualKey) settings.virtualKey = virtualKey;
  if (customHost) settings.customHost = customHost;
  return settings;
}

/** The caller's own provider credentials. */
export function callerCredentials(headers: IncomingHttpHeaders): CallerCredentials {
  const credentials: CallerCredentials = {};
  const authorization = headerValue(headers, "authorization");
  const apiKey = headerValue(headers, "x-api-key");
  if (authorization) credentials.authorization = authorization;
  if (apiKey) credentials.apiKey = apiKey;
  return credentials;
}

/**
 * The headers checks may read: credentials removed, except `authorization` when it is not a
 * provider credential (a slug or the mock is used), so a check can verify a caller's token.
 */
export function checkHeaders(headers: IncomingHttpHeaders, keepAuthorization: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (CREDENTIAL_HEADERS.has(name) && !(keepAuthorization && name === "authorization")) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Client headers passed to the upstream, whatever the provider's format; its credential headers are added separately. */
const FORWARDED = FORMAT_LIST.flatMap((format) => format.forwardedHeaders);
/** Forwarded only with the caller's own credential: they select the caller's account. */
const FORWARDED_WITH_CALLER_CREDENTIAL = FORMAT_LIST.flatMap((format) => format.forwardedWithCallerCredential);

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
  const names = provider.slug ? FORWARDED : [...FORWARDED, ...FORWARDED_WITH_CALLER_CREDENTIAL];
  for (const name of names) {
    const value = headerValue(headers, name);
    if (value) out[name] = value;
  }
  const defaults = provider.format ? FORMATS[provider.format].upstreamDefaults : {};
  for (const [name, value] of Object.entries(defaults)) if (!out[name]) out[name] = value;
  return { ...out, ...provider.headers };
}

/** Upstream response headers worth passing back: request ids, rate limits, Retry-After. */
export function passedBackHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name === "retry-after" || FORMAT_LIST.some((format) => format.passesBack(name))) {
      out[name] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return out;
}
