/**
 * Keeps credentials out of request logs: values under credential-like keys are replaced, and any
 * known secret (the provider credential a request used, the caller's key) is cut out wherever it
 * appears, even inside message text.
 */

/** Keys whose values are credentials, in any case, with `-` or `_`. */
const CREDENTIAL_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|x-gateway-api-key|password|passwd|secret|client[-_]?secret|token|access[-_]?token|refresh[-_]?token|id[-_]?token|credentials?|private[-_]?key)$/i;

/** What replaces a removed credential. */
export const REDACTED = "[REDACTED]";

/** Verdicts of CREDENTIAL_KEY by key: a record repeats the same few dozen keys (bounded, as keys come from bodies). */
const credentialKeys = new Map<string, boolean>();

function isCredentialKey(key: string): boolean {
  let verdict = credentialKeys.get(key);
  if (verdict === undefined) {
    verdict = CREDENTIAL_KEY.test(key);
    if (credentialKeys.size < 4096) credentialKeys.set(key, verdict);
  }
  return verdict;
}

/** A deep copy of a JSON value with credential-like keys' values replaced. */
export function redactCredentialKeys(value: unknown, depth = 0): unknown {
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactCredentialKeys(item, depth + 1));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    out[key] = isCredentialKey(key) ? REDACTED : redactCredentialKeys((value as Record<string, unknown>)[key], depth + 1);
  }
  return out;
}

/** A JSON value with every occurrence of each secret (8 characters or more) replaced. */
export function redactSecrets<T>(value: T, secrets: Iterable<string | undefined>): T {
  const list = [...secrets].filter((s): s is string => typeof s === "string" && s.length >= 8);
  if (list.length === 0) return value;
  let text = JSON.stringify(value);
  if (text === undefined) return value;
  let changed = false;
  for (const secret of list) {
    // The secret as it appears inside a JSON string (quotes and backslashes escaped).
    const encoded = JSON.stringify(secret).slice(1, -1);
    if (text.includes(encoded)) {
      text = text.split(encoded).join(REDACTED);
      changed = true;
    }
  }
  return changed ? (JSON.parse(text) as T) : value;
}
