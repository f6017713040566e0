/**
 * The signature of webhook calls: `x-guardgate-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<body>">`. Signing the timestamp with the body lets a receiver check both origin and
 * freshness, so a captured call cannot be replayed later. docs/webhooks.md, "Verifying the signature", shows how to
 * verify it.
 */
import { createHmac } from "node:crypto";

/** Name of the signature header. */
export const SIGNATURE_HEADER = "x-guardgate-signature";

/** The signature header's value for `body`, sent at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}
