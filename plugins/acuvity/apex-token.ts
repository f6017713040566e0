/**
 * Where an Acuvity key sends its calls: an Acuvity token is a JWT whose `opaque["apex-url"]` claim
 * names the account's Apex endpoint. The claim is read, not verified: the token is the caller's
 * own credential, and Apex verifies it on every call.
 */
import { PartnerError, type PartnerService } from "../partner-kit/index.js";

/** The Apex origin a token names; a PartnerError when the token carries none. */
export function apexUrlOf(service: PartnerService, token: string): string {
  const payload = token.split(".")[1];
  let claims: unknown;
  try {
    claims = payload ? JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) : undefined;
  } catch {
    claims = undefined;
  }
  const url = (claims as { opaque?: Record<string, unknown> } | undefined)?.opaque?.["apex-url"];
  if (typeof url !== "string" || url === "") {
    throw new PartnerError(
      "partner_credentials_invalid",
      `${service.name}: credentials.apiKey is not an Acuvity token naming its Apex endpoint (opaque["apex-url"]); set credentials.baseURL instead`,
    );
  }
  return url;
}
