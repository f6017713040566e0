/**
 * The gateway's request headers an inference request is read for (spec §5), once per request:
 * strict compliance, the provider a header names, and the caller's own provider credentials.
 * Credentials are carried for the upstream only; checks and logs never see them.
 */
import type { IncomingHttpHeaders } from "node:http";
import { GatewayError } from "../errors.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import type { CallerCredentials, HeaderProviderSettings } from "../providers/resolve.js";

/** The spec's legacy header, as written there (spec §5). */
const LEGACY_VIRTUAL_KEY = "virtual_key";

// Most requests name no provider by header, and many carry no credential of their own: they share
// one empty value each, read-only like every value of a request's context, rather than a new one.
/** No provider settings by header. */
export const NO_HEADER_PROVIDER = Object.freeze({}) as HeaderProviderSettings;
/** No credentials of the caller's own. */
export const NO_CALLER = Object.freeze({}) as CallerCredentials;

/** Strict compliance is on unless the header says `false` (spec §5, §6). */
export function strictCompliance(headers: IncomingHttpHeaders): boolean {
  const value = headerValue(headers, HEADER.strictCompliance)?.trim().toLowerCase();
  if (value === undefined || value === "" || value === "true") return true;
  if (value === "false") return false;
  throw new GatewayError("invalid_header", `${HEADER.strictCompliance}: must be true or false`);
}

/** Provider settings carried by headers. */
export function headerProviderSettings(headers: IncomingHttpHeaders): HeaderProviderSettings {
  const provider = headerValue(headers, HEADER.provider)?.trim();
  const virtualKey = (headerValue(headers, HEADER.virtualKey) ?? headerValue(headers, LEGACY_VIRTUAL_KEY))?.trim();
  const customHost = headerValue(headers, HEADER.customHost)?.trim();
  if (!provider && !virtualKey && !customHost) return NO_HEADER_PROVIDER;
  const settings: HeaderProviderSettings = {};
  if (provider) settings.provider = provider;
  if (virtualKey) settings.virtualKey = virtualKey;
  if (customHost) settings.customHost = customHost;
  return settings;
}

/** The caller's own provider credentials. */
export function callerCredentials(headers: IncomingHttpHeaders): CallerCredentials {
  const authorization = headerValue(headers, "authorization");
  const apiKey = headerValue(headers, "x-api-key");
  if (!authorization && !apiKey) return NO_CALLER;
  const credentials: CallerCredentials = {};
  if (authorization) credentials.authorization = authorization;
  if (apiKey) credentials.apiKey = apiKey;
  return credentials;
}
