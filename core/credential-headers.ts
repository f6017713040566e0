/**
 * Which request headers carry credentials. Checks that send anything out drop them, and the
 * runner redacts their values from check results.
 */

// Exact names, and any name built from a word that means a secret (x-goog-api-key,
// x-amz-security-token, x-auth-token, x-gateway-api-key).
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key"]);
const CREDENTIAL_WORD =
  /(?:^|[-_])(?:auth|authorization|token|secret|key|apikey|password|passwd|session|cookie|credentials?|signature)(?:$|[-_])/i;

/**
 * Names already judged. Every phase asks about every request header, and the same few dozen names
 * come with every request; the answer never changes.
 */
const judged = new Map<string, boolean>();
/** Names come from clients: past this many, they are judged without being remembered. */
const JUDGED_MAX = 1024;

/** Whether a header's value is a secret: a credential header by name. */
export function headerHoldsSecret(name: string): boolean {
  let secret = judged.get(name);
  if (secret === undefined) {
    const lower = name.toLowerCase();
    secret = CREDENTIAL_HEADERS.has(lower) || CREDENTIAL_WORD.test(lower);
    if (judged.size < JUDGED_MAX) judged.set(name, secret);
  }
  return secret;
}

/**
 * Whether a header may carry a credential and so must never leave the service: the secret
 * headers and, to be safe, every header of the gateway's own (`x-gateway-*`).
 */
export function isCredentialHeader(name: string): boolean {
  return headerHoldsSecret(name) || name.toLowerCase().startsWith("x-gateway-");
}
