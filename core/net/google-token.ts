/**
 * OAuth access tokens for a Google service account: a JWT signed with the account's key (RS256)
 * is exchanged at the account's `token_uri` for a bearer token, which is reused until shortly
 * before it expires. The HTTP POST is the caller's, so each caller sends it through its own
 * outbound path (the partner kit for checks, the upstream client for providers) with its own
 * time-outs, address policy and error mapping.
 */
import { createHash, createPrivateKey, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { type RenewableToken, TokenCache } from "./token-cache.js";

/** Scope of a token that may call any Google Cloud API the account is allowed to. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
export const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** A cached token is dropped this long before it expires, so a call never carries a stale one. */
const EXPIRY_MARGIN_MS = 60_000;
const MAX_CACHED = 100;

/** A service account key as Google issues it (the fields the exchange needs). */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri?: string;
  project_id?: string;
}

/** The form the exchange POSTs (`application/x-www-form-urlencoded`) and where. */
export interface TokenExchange {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What the token endpoint granted; the caller checks the answer's fields and throws its own errors. */
export interface GrantedToken {
  accessToken: string;
  /** Seconds the token lives. */
  expiresIn: number;
}

/** Sends the exchange and reads the grant. */
export type PostTokenExchange = (exchange: TokenExchange) => Promise<GrantedToken>;

/** A service account whose private key cannot be read; the message names the field, never its value. */
export class ServiceAccountKeyError extends Error {
  constructor() {
    super("private_key is not a PEM private key");
    this.name = "ServiceAccountKeyError";
  }
}

// Per process (and per pool worker): keyed by the account, its token URI and a hash of its key, never the key.
const tokens = new TokenCache(MAX_CACHED);

function cacheKey(account: ServiceAccount): string {
  const keyHash = createHash("sha256").update(account.private_key).digest("hex");
  return `${account.client_email}\n${account.token_uri ?? DEFAULT_TOKEN_URI}\n${keyHash}`;
}

/** A bearer token for the account: the cached one while it is fresh, else a new one from `post`. */
export async function serviceAccountToken(account: ServiceAccount, post: PostTokenExchange, now = Date.now()): Promise<string> {
  return tokens.get(cacheKey(account), () => exchangeToken(account, post, now), now);
}

async function exchangeToken(account: ServiceAccount, post: PostTokenExchange, now: number): Promise<RenewableToken> {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(account.private_key);
  } catch {
    throw new ServiceAccountKeyError();
  }
  const tokenUri = account.token_uri ?? DEFAULT_TOKEN_URI;
  const issuedAt = Math.floor(now / 1000);
  const assertion = await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(account.client_email)
    .setAudience(tokenUri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + 3600)
    .sign(privateKey);
  const granted = await post({
    url: tokenUri,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
  });
  return { token: granted.accessToken, renewAt: now + granted.expiresIn * 1000 - EXPIRY_MARGIN_MS };
}

/** Forgets every cached token (tests, and a process that rotates its accounts' keys). */
export function clearServiceAccountTokens(): void {
  tokens.clear();
}
