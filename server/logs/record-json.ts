/**
 * The JSON text of a request-log record: the text `JSON.stringify` makes, in less time. A record
 * holds its final attempt's guardrail results twice, in its `hook_results` and in the attempt's
 * own, as the same objects; with the standard pack they are most of the record, and
 * `JSON.stringify` writes each out twice. Here each guardrail result is written once and its text
 * reused: a 4.6 KB record of the pack's shape and the redaction's key test over its text, 20.3 →
 * 17.9 µs (median of 10 rounds, 2 shared cores; `npm run bench:record` for the whole stage).
 * Everything else is `JSON.stringify`'s own text, member by member, in the same order.
 *
 * The texts are kept per result object for the process, weakly: the answer's `hook_results`
 * (`hookResultsJson`) and the record's are the same objects, so a result is written once for both.
 * A guardrail result is settled (capped, redacted) before it leaves the engine and is not changed
 * after, which is what makes its text reusable.
 */

/** Texts of the guardrail results written so far, by object. */
type Texts = Pick<WeakMap<object, string | undefined>, "get" | "has" | "set">;

/** Every guardrail result's text once written, while the result lives. */
const written: Texts = new WeakMap<object, string | undefined>();

/** A plain object or array, with nothing `JSON.stringify` would treat specially (a toJSON, a class). */
function plain(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === Object.prototype || proto === null;
}

/** A list of guardrail results, each result's text written once per record. */
function listText(list: unknown[], texts: Texts): string {
  let text = "[";
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    let part: string | undefined;
    if (plain(item)) {
      if (texts.has(item)) part = texts.get(item);
      else texts.set(item, (part = JSON.stringify(item)));
    } else part = JSON.stringify(item);
    // As in JSON.stringify, what has no JSON form (undefined, a function) is null in a list.
    text += `${i ? "," : ""}${part ?? "null"}`;
  }
  return `${text}]`;
}

/** A `hook_results` object's text; one of another shape is `JSON.stringify`'s alone. */
function hookResultsText(results: unknown, texts: Texts): string | undefined {
  if (!plain(results)) return JSON.stringify(results);
  const keys = Object.keys(results);
  const { before_request_hooks: before, after_request_hooks: after } = results;
  if (keys.length !== 2 || keys[0] !== "before_request_hooks" || !Array.isArray(before) || !Array.isArray(after)) {
    return JSON.stringify(results);
  }
  return `{"before_request_hooks":${listText(before, texts)},"after_request_hooks":${listText(after, texts)}}`;
}

/** `"key":` for each member name written so far: a record's names are a few dozen, the same in every record. */
const keyTexts = new Map<string, string>();
/** Bounded: an object of another shape could bring names without end. */
const KEY_TEXTS_MAX = 512;

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `${JSON.stringify(key)}:`;
    if (keyTexts.size < KEY_TEXTS_MAX) keyTexts.set(key, text);
  }
  return text;
}

/**
 * An object's text member by member, `hook_results` (and, in a record, `attempts`) written by the
 * functions above. The parts are joined once: appended one by one, each member left a chain of
 * partial strings that the first search of the text (the redaction's) then copied flat.
 */
function objectText(value: Record<string, unknown>, texts: Texts, record: boolean): string {
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const member = value[key];
    let part: string | undefined;
    if (key === "hook_results") part = hookResultsText(member, texts);
    else if (record && key === "attempts" && Array.isArray(member)) {
      const attempts: string[] = [];
      for (const attempt of member as unknown[]) {
        attempts.push((plain(attempt) ? objectText(attempt, texts, false) : JSON.stringify(attempt)) ?? "null");
      }
      part = `[${attempts.join(",")}]`;
    } else part = JSON.stringify(member);
    // ...and is left out of an object.
    if (part !== undefined) parts.push(`${keyText(key)}${part}`);
  }
  return `{${parts.join(",")}}`;
}

/** Whether a `hook_results` value holds a guardrail result, the only thing worth writing apart. */
function holdsResults(hooks: unknown): boolean {
  if (!plain(hooks)) return false;
  const { before_request_hooks: before, after_request_hooks: after } = hooks;
  return (Array.isArray(before) && before.length > 0) || (Array.isArray(after) && after.length > 0);
}

/**
 * Whether a record holds guardrail results. One without is written by a single `JSON.stringify`:
 * member by member, each call made its own text buffer, four times the garbage of the whole text.
 */
function sharesResults(record: Record<string, unknown>): boolean {
  if (holdsResults(record.hook_results)) return true;
  const attempts = record.attempts;
  return Array.isArray(attempts) && attempts.some((attempt) => plain(attempt) && holdsResults(attempt.hook_results));
}

/** `JSON.stringify(value)` for a request-log record (or any value), each guardrail result written once. */
export function recordJson(value: unknown): string | undefined {
  return plain(value) && sharesResults(value) ? objectText(value, written, true) : JSON.stringify(value);
}

/**
 * `JSON.stringify(hooks)` for an answer's `hook_results`; its guardrail results' texts are kept
 * for the request's record, which holds the same objects.
 */
export function hookResultsJson(hooks: unknown): string | undefined {
  return hookResultsText(hooks, written);
}
