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

// The writers below push the text's parts onto one list, joined once at the end into one flat
// string: appended piece by piece, a text is a chain of partial strings (garbage of its own) that
// the first search of it (the redaction's) copies flat again, and an attempt's text, written apart,
// was copied once more into the record's.

/** Pushes a list of guardrail results, each result's text written once per record. */
function writeList(out: string[], list: unknown[], texts: Texts): void {
  out.push("[");
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    let part: string | undefined;
    if (plain(item)) {
      if (texts.has(item)) part = texts.get(item);
      else texts.set(item, (part = JSON.stringify(item)));
    } else part = JSON.stringify(item);
    if (i) out.push(",");
    // As in JSON.stringify, what has no JSON form (undefined, a function) is null in a list.
    out.push(part ?? "null");
  }
  out.push("]");
}

/** Pushes a `hook_results` object's text (one of another shape is `JSON.stringify`'s alone); false when it has none. */
function writeHookResults(out: string[], results: unknown, texts: Texts): boolean {
  const keys = plain(results) ? Object.keys(results) : [];
  const { before_request_hooks: before, after_request_hooks: after } = plain(results) ? results : {};
  if (keys.length !== 2 || keys[0] !== "before_request_hooks" || !Array.isArray(before) || !Array.isArray(after)) {
    const text = JSON.stringify(results);
    if (text === undefined) return false;
    out.push(text);
    return true;
  }
  out.push('{"before_request_hooks":');
  writeList(out, before, texts);
  out.push(',"after_request_hooks":');
  writeList(out, after, texts);
  out.push("}");
  return true;
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

/** Pushes an object's text member by member, `hook_results` (and, in a record, `attempts`) written by the writers above. */
function writeObject(out: string[], value: Record<string, unknown>, texts: Texts, record: boolean): void {
  out.push("{");
  let first = true;
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (key === "hook_results") {
      const at = out.length;
      out.push(first ? "" : ",", keyText(key));
      // ...and what has none is left out of an object.
      if (!writeHookResults(out, member, texts)) {
        out.length = at;
        continue;
      }
    } else if (record && key === "attempts" && Array.isArray(member)) {
      out.push(first ? "" : ",", keyText(key), "[");
      for (let i = 0; i < member.length; i++) {
        const attempt: unknown = member[i];
        if (i) out.push(",");
        if (plain(attempt)) writeObject(out, attempt, texts, false);
        else out.push(JSON.stringify(attempt) ?? "null");
      }
      out.push("]");
    } else {
      const part = JSON.stringify(member);
      if (part === undefined) continue;
      out.push(first ? "" : ",", keyText(key), part);
    }
    first = false;
  }
  out.push("}");
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
  if (!plain(value) || !sharesResults(value)) return JSON.stringify(value);
  const out: string[] = [];
  writeObject(out, value, written, true);
  return out.join("");
}

/**
 * `JSON.stringify(hooks)` for an answer's `hook_results`; its guardrail results' texts are kept
 * for the request's record, which holds the same objects. With `head` and `tail`, the text between
 * them, joined once (an answer's text around its `hook_results`); undefined when `hooks` has no
 * JSON form.
 */
export function hookResultsJson(hooks: unknown, head = "", tail = ""): string | undefined {
  const out: string[] = [head];
  if (!writeHookResults(out, hooks, written)) return undefined;
  out.push(tail);
  return out.join("");
}
