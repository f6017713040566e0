/**
 * OAuth access tokens for Google Cloud calls: a token given in the credentials, or one obtained
 * for a service account (a JWT signed with its key, exchanged at its `token_uri`) and reused until
 * shortly before it expires. The exchange goes through the partner kit like any other call.
 */
import { createHash, createPrivateKey } from "node:crypto";
import { SignJWT } from "jose";
import type { CheckContext } from "../../core/index.js";
import { callPartner, PartnerError, type PartnerService, requiredField } from "../partner-kit/index.js";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** A cached token is dropped this long before it expires, so a call never carries a stale one. */
const EXPIRY_MARGIN_MS = 60_000;
const MAX_CACHED = 100;

interface CachedToken {
  token: string;
  expiresAt: number;
}

// Per process (and per pool worker): keyed by the account and a hash of its key, never the key.
const cache = new Map<string, CachedToken>();

/** A service account key as Google issues it (the fields the exchange needs). */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  token_uri?: string;
  project_id?: string;
}

/** The bearer token for a call: the credentials' `accessToken`, or one for their service account. */
export async function googleAccessToken(
  context: CheckContext,
  service: PartnerService,
  timeout: number,
  now = Date.now(),
): Promise<string> {
  const given = context.credentials?.accessToken;
  if (typeof given === "string" && given !== "") return given;
  const account = context.credentials?.serviceAccount as ServiceAccount | undefined;
  if (!account) {
    throw new PartnerError(
      "partner_credentials_invalid",
      `${service.name} needs credentials.serviceAccount (a service account key) or credentials.accessToken`,
    );
  }
  const key = `${account.client_email}\n${createHash("sha256").update(account.private_key).digest("hex")}`;
  const cached = cache.get(key);
  if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > now) return cached.token;

  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(account.private_key);
  } catch {
    throw new PartnerError(
      "partner_credentials_invalid",
      `${service.name}: credentials.serviceAccount.private_key is not a PEM private key`,
    );
  }
  const tokenUri = account.token_uri ?? DEFAULT_TOKEN_URI;
  const issuedAt = Math.floor(now / 1000);
  const assertion = await new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(account.client_email)
    .setAudience(tokenUri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + 3600)
    .sign(privateKey);
  const answer = await callPartner(
    context,
    { id: service.id, name: `${service.name} (token exchange)` },
    {
      url: tokenUri,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
      timeout,
    },
  );
  const token = requiredField(service, answer.body, ["access_token"], "string");
  const expiresIn = requiredField(service, answer.body, ["expires_in"], "number");
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(key, { token, expiresAt: now + expiresIn * 1000 });
  return token;
}
