/**
 * Credentials written inline in a saved guardrail or config (a check's `parameters.credentials`)
 * are kept as written, for requests to use, but never go back out: answers show every field of a
 * `credentials` object with the marker REDACTED in place of its value. A save that sends the
 * marker back keeps the value stored at the same place, so a record read, edited and saved again
 * keeps working; a marker with no stored value at its place is refused, since saving it would
 * hand the marker to a partner service as a key.
 */
import { REDACTED } from "../../core/index.js";
import { isObject, joinPath } from "../../core/internal.js";
import { invalid } from "../store/errors.js";

/** The key under which a check's parameters carry credentials. */
const CREDENTIALS = "credentials";

/** A credentials value with every leaf replaced by the marker; field names and nesting kept. */
function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, masked(item)]));
  return REDACTED;
}

/** A copy of a saved config or guardrail definition with the values of every inline `credentials` masked. */
export function withoutInlineCredentials<T>(value: T): T {
  const walk = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(walk);
    if (!isObject(item)) return item;
    // fromEntries defines keys, so a `__proto__` key stays a key.
    return Object.fromEntries(Object.entries(item).map(([key, v]) => [key, key === CREDENTIALS ? masked(v) : walk(v)]));
  };
  return walk(value) as T;
}

/**
 * `incoming` with each marker inside a `credentials` object replaced by the value `stored` holds
 * at the same place. The place must belong to the same check: where an object on the way names an
 * `id`, the stored object must name the same one, so reordered checks never trade credentials.
 * Throws a 400 (`redacted_credential`) naming the place (under `path`) when nothing is stored there.
 */
export function restoreInlineCredentials<T>(incoming: T, stored: unknown, where: string, path = ""): T {
  const walk = (item: unknown, held: unknown, path: string, inside: boolean): unknown => {
    if (item === REDACTED && inside) {
      if (held === undefined || held === REDACTED || isObject(held) || Array.isArray(held)) {
        throw invalid(
          `${where}: ${path} is the redaction marker "${REDACTED}" and no credential is stored there; send the credential itself`,
          "redacted_credential",
        );
      }
      return held;
    }
    if (Array.isArray(item)) {
      return item.map((v, i) => walk(v, Array.isArray(held) ? held[i] : undefined, joinPath(path, i), inside));
    }
    if (!isObject(item)) return item;
    const same = isObject(held) && held.id === item.id ? held : undefined;
    return Object.fromEntries(
      Object.entries(item).map(([key, v]) => [
        key,
        walk(v, same && Object.hasOwn(same, key) ? same[key] : undefined, joinPath(path, key), inside || key === CREDENTIALS),
      ]),
    );
  };
  return walk(incoming, stored, path, false) as T;
}
