/**
 * Credentials never leave the service in a check result. A check sees its plugin's credentials
 * (and may see request headers that carry secrets); whatever it puts in `data`, `log` or an error
 * message reaches `hook_results` and the request log. So the runner replaces every verbatim
 * occurrence of those secrets in a result with `[REDACTED]` before the result leaves the phase.
 *
 * Redaction matches exact text: a check that encodes a secret (base64, reversed, split) defeats
 * it, which is why the rule for plugin authors stays "never return credentials"; redaction is the
 * net under that rule. Strings shorter than MIN_SECRET_LENGTH are not treated as secrets: a
 * region code or a flag among the credentials would otherwise blank every matching word.
 */
import { headerHoldsSecret } from "./credential-headers.js";
import type { CheckResult } from "./types.js";

/** What a secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** Credential strings shorter than this are not redacted (see above). */
export const MIN_SECRET_LENGTH = 6;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Adds every string of a credentials value (nested objects and arrays too) to `into`. */
export function collectSecrets(value: unknown, into: Set<string>, depth = 0): Set<string> {
  if (depth > 16) return into;
  if (typeof value === "string") {
    if (value.length >= MIN_SECRET_LENGTH) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, into, depth + 1);
  } else if (isPlainObject(value)) {
    for (const item of Object.values(value)) collectSecrets(item, into, depth + 1);
  }
  return into;
}

/**
 * The secrets in request headers: the value of every credential header, the token after the
 * scheme of an `authorization` value, and each cookie's value.
 */
export function headerSecrets(headers: Record<string, string> | undefined, into: Set<string>): Set<string>;
/** The same, with a set made only when there is a secret: undefined when there is none. */
export function headerSecrets(headers: Record<string, string> | undefined): Set<string> | undefined;
export function headerSecrets(headers: Record<string, string> | undefined, into?: Set<string>): Set<string> | undefined {
  if (!headers) return into;
  // Most requests carry no secret past the gateway's own credential headers: no set, no key list.
  for (const name in headers) {
    const value = headers[name];
    if (typeof value !== "string" || !Object.hasOwn(headers, name) || !headerHoldsSecret(name)) continue;
    into ??= new Set();
    collectSecrets(value, into);
    const lower = name.toLowerCase();
    if (lower.endsWith("authorization")) collectSecrets(value.replace(/^\S+\s+/, ""), into);
    if (lower === "cookie" || lower === "set-cookie") {
      for (const pair of value.split(";")) collectSecrets(pair.slice(pair.indexOf("=") + 1).trim(), into);
    }
  }
  return into;
}

/** Replaces known secrets in strings and in plain data. */
export class Redactor {
  /** Longest first, so a secret that contains another is replaced whole. */
  readonly #secrets: string[];

  constructor(secrets: Iterable<string>) {
    this.#secrets = [...new Set(secrets)].sort((a, b) => b.length - a.length);
  }

  /** True when there is nothing to redact. */
  get empty(): boolean {
    return this.#secrets.length === 0;
  }

  /** The text with every secret replaced. */
  text(text: string): string {
    let out = text;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  /**
   * A copy of a value with every secret replaced in its strings and keys; arrays and plain
   * objects are copied (cycles kept), anything else is returned as it is.
   */
  value(value: unknown, seen = new Map<object, unknown>()): unknown {
    if (typeof value === "string") return this.text(value);
    if (typeof value !== "object" || value === null) return value;
    const known = seen.get(value);
    if (known !== undefined) return known;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(this.value(item, seen));
      return copy;
    }
    if (!isPlainObject(value)) return value;
    const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
    seen.set(value, copy);
    for (const [key, item] of Object.entries(value)) {
      // defineProperty, not assignment: a `__proto__` key stays a key.
      Object.defineProperty(copy, this.text(key), {
        value: this.value(item, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }

  /** Redacts the parts of a check result a check writes: `data`, `log` and `error`. */
  result(result: CheckResult): CheckResult {
    if (this.empty) return result;
    result.data = this.value(result.data) as Record<string, unknown>;
    if (typeof result.log === "string") result.log = this.text(result.log);
    if (typeof result.error === "string") result.error = this.text(result.error);
    else if (result.error) result.error = { name: this.text(result.error.name), message: this.text(result.error.message) };
    return result;
  }
}

/** A redactor with nothing to redact, shared by the phases whose requests carry no secrets. */
export const NO_SECRETS = new Redactor([]);
