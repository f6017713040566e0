/**
 * The string values inside a JSON text, where they sit in it: tool-call arguments travel as JSON
 * text, and an application reads them through `JSON.parse`, so a check must read the decoded
 * values (`"123\u002d45"` is `123-45`), and a redaction of one must be written back as a string
 * literal at the same place, the rest of the text untouched. One linear scan, no recursion.
 */

/** One string value of a JSON text: its decoded value and the span of its literal, quotes included. */
export interface JsonStringSpan {
  start: number;
  end: number;
  value: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where the string literal starting at `start` (its opening quote) ends, past its closing quote. */
function literalEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return text.length;
}

/** Whether the next character after `from` that is not JSON whitespace is a colon: the literal was a key. */
function isKey(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  return text[i] === ":";
}

/**
 * The string values (not keys) of a JSON text in document order, or undefined when the text is
 * not valid JSON (its raw text is then what a check reads).
 */
export function jsonStringSpans(text: string): JsonStringSpan[] | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const spans: JsonStringSpan[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== QUOTE) continue;
    const end = literalEnd(text, i);
    if (!isKey(text, end)) spans.push({ start: i, end, value: JSON.parse(text.slice(i, end)) as string });
    i = end - 1;
  }
  return spans;
}

/** The JSON text with the literals of some of its string values replaced by these values, encoded. */
export function replaceJsonStrings(text: string, replacements: ReadonlyArray<{ span: JsonStringSpan; value: string }>): string {
  const sorted = [...replacements].sort((a, b) => a.span.start - b.span.start);
  let out = "";
  let at = 0;
  for (const { span, value } of sorted) {
    out += text.slice(at, span.start) + JSON.stringify(value);
    at = span.end;
  }
  return out + text.slice(at);
}

/**
 * Whether a JSON text has an object with the same key twice. Parsers disagree on which one wins
 * (JavaScript and Python take the last, others the first), so such a text is read differently by
 * the gateway and by some clients. Linear: keys are compared per object as they are met.
 */
export function hasDuplicateKeys(text: string): boolean {
  // Keys seen in each open container; arrays hold undefined.
  const open: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{") open.push(new Set());
    else if (c === "[") open.push(undefined);
    else if (c === "}" || c === "]") open.pop();
    else if (c === '"') {
      const end = literalEnd(text, i);
      const keys = open[open.length - 1];
      if (keys && isKey(text, end)) {
        const literal = text.slice(i, end);
        const key = literal.includes("\\") ? safeDecode(literal) : literal.slice(1, -1);
        if (keys.has(key)) return true;
        keys.add(key);
      }
      i = end - 1;
    }
  }
  return false;
}

function safeDecode(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return literal;
  }
}
