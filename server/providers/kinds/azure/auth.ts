/**
 * The credential of an Azure OpenAI call, in this order: a Microsoft Entra ID token obtained with
 * the client-credentials flow (`azure_auth_mode: "entra"`, or an `azure_entra_client_secret`),
 * a token given as `azure_ad_token`, the provider's api key in the `api-key` header, or the
 * caller's own `Authorization`. Entra tokens are cached per provider until shortly before they
 * expire; the cache is keyed by the provider's identity and the application, never by a secret.
 */
import { type Dispatcher, request } from "undici";
import { type RenewableToken, TokenCache } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { ProviderCall } from "../../kind.js";
import { type AzureOptions, DEFAULT_AUTHORITY_HOST, DEFAULT_ENTRA_SCOPE } from "./options.js";
import { label } from "./target.js";

/** Microsoft's authority hosts (public and sovereign clouds): the only ones a config may name. */
const MICROSOFT_AUTHORITIES: ReadonlySet<string> = new Set([
  "https://login.microsoftonline.com",
  "https://login.microsoftonline.us",
  "https://login.chinacloudapi.cn",
  "https://login.partner.microsoftonline.cn",
]);

const TOKEN_TIMEOUT_MS = 10_000;
/** Largest token answer read: a token is a few kilobytes. */
const MAX_TOKEN_BYTES = 64 * 1024;
/** A token is renewed this long before it expires, or at half its life when that is shorter. */
const RENEW_BEFORE_MS = 5 * 60_000;

/** Entra tokens by provider identity and application. Configs may each name an application of their own. */
const tokens = new TokenCache(1000);

/** A compact JWS (three base64url parts): a bearer token, not an api key. */
function looksLikeJwt(secret: string): boolean {
  return /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/.test(secret);
}

/** The headers that authenticate the call, replacing any credential header the call carries. */
export async function azureAuthHeaders(call: ProviderCall, options: AzureOptions): Promise<Record<string, string>> {
  const { authorization, "api-key": _apiKey, ...headers } = call.headers;
  if (options.azure_auth_mode === "entra" || options.azure_entra_client_secret) {
    return { ...headers, authorization: `Bearer ${await entraToken(call, options)}` };
  }
  if (options.azure_ad_token) return { ...headers, authorization: `Bearer ${options.azure_ad_token}` };
  const secret = call.provider.secret ?? bearerOf(authorization);
  if (secret === undefined) return headers;
  return looksLikeJwt(secret) ? { ...headers, authorization: `Bearer ${secret}` } : { ...headers, "api-key": secret };
}

function bearerOf(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return match?.[1];
}

function authorityOf(call: ProviderCall, options: AzureOptions): string {
  const host = (options.azure_authority_host ?? DEFAULT_AUTHORITY_HOST).replace(/\/+$/, "");
  // A config is the caller's to write: its token request may only go to Microsoft. A provider
  // record (a slug) is the operator's, who may point it anywhere (a proxy, a test double).
  if (call.provider.slug === undefined && !MICROSOFT_AUTHORITIES.has(host)) {
    throw new GatewayError(
      "provider_not_configured",
      `azure_authority_host: a config may name only Microsoft's authority hosts (${[...MICROSOFT_AUTHORITIES].join(", ")}); set another on a provider record`,
    );
  }
  return host;
}

async function entraToken(call: ProviderCall, options: AzureOptions): Promise<string> {
  const authority = authorityOf(call, options);
  const scope = options.azure_entra_scope ?? DEFAULT_ENTRA_SCOPE;
  const key = [call.provider.identity, authority, options.azure_entra_tenant_id, options.azure_entra_client_id, scope].join("\0");
  return tokens.get(key, () => fetchToken(call, options, authority, scope));
}

/** Forgets every cached token (tests, and a process that rotates its applications' secrets). */
export function forgetAzureTokens(): void {
  tokens.clear();
}

async function fetchToken(call: ProviderCall, options: AzureOptions, authority: string, scope: string): Promise<RenewableToken> {
  const tenant = options.azure_entra_tenant_id ?? "";
  const secret = options.azure_entra_client_secret ?? "";
  const url = `${authority}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
  const form = new URLSearchParams({
    grant_type: "client_credentials",
    client_id: options.azure_entra_client_id ?? "",
    client_secret: secret,
    scope,
  });
  const failed = (why: string) =>
    new GatewayError(
      "provider_auth_failed",
      `${label(call)}: Microsoft Entra ID gave no token: ${secret ? why.replaceAll(secret, "[REDACTED]") : why}`,
    );
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: form.toString(),
      headersTimeout: TOKEN_TIMEOUT_MS,
      bodyTimeout: TOKEN_TIMEOUT_MS,
      ...(call.signal && { signal: call.signal }),
    });
  } catch (error) {
    const e = error as { code?: string; message?: string };
    throw failed(`${new URL(url).host} could not be reached (${e.code ?? e.message ?? "unknown error"})`);
  }
  const status = response.statusCode;
  let text: string;
  try {
    text = await readCapped(response.body);
  } catch (error) {
    throw failed(`the token endpoint's answer could not be read (${(error as Error).message})`);
  }
  let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } = {};
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    // Said below, by status.
  }
  if (status !== 200 || typeof answer.access_token !== "string" || !answer.access_token) {
    const reason =
      typeof answer.error === "string"
        ? `${answer.error}${typeof answer.error_description === "string" ? `: ${firstLine(answer.error_description)}` : ""}`
        : "the answer holds no access_token";
    throw failed(`the token endpoint answered ${status} (${reason})`);
  }
  const lifeMs = Math.max(0, Number(answer.expires_in) || 0) * 1000;
  return { token: answer.access_token, renewAt: Date.now() + lifeMs - Math.min(RENEW_BEFORE_MS, lifeMs / 2) };
}

/** Entra's descriptions carry a trace id and a timestamp on later lines; the first says why. */
function firstLine(text: string): string {
  return text.split(/\r?\n/)[0]?.slice(0, 300) ?? "";
}

async function readCapped(body: Dispatcher.ResponseData["body"]): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of body) {
    size += (part as Buffer).length;
    if (size > MAX_TOKEN_BYTES) {
      body.destroy();
      throw new Error(`it exceeds ${MAX_TOKEN_BYTES} bytes`);
    }
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}
