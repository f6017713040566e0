/** The string values of a JSON text, where they sit, and keys given twice. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasDuplicateKeys, jsonStringSpans, replaceJsonStrings } from "./json-strings.js";

describe("jsonStringSpans", () => {
  it("gives the decoded values, not the keys, and their literals' spans", () => {
    const text = '{"to": "hr", "body":"123\\u002d45\\u002d6789", "n": 2, "tags": ["a\\"b"]}';
    const spans = jsonStringSpans(text) ?? [];
    expect(spans.map((s) => s.value)).toEqual(["hr", "123-45-6789", 'a"b']);
    for (const span of spans) expect(JSON.parse(text.slice(span.start, span.end))).toBe(span.value);
    expect(jsonStringSpans('{"a": "b"')).toBeUndefined();
  });

  it("writes values back as literals, the rest of the text untouched", () => {
    const text = '{ "a" : "x\\u0041y", "b": "keep" }';
    const [first] = jsonStringSpans(text) ?? [];
    expect(replaceJsonStrings(text, [{ span: first!, value: 'new "q"' }])).toBe('{ "a" : "new \\"q\\"", "b": "keep" }');
  });

  it("reads every string value of any JSON value (property)", () => {
    const strings = (value: unknown): string[] =>
      typeof value === "string"
        ? [value]
        : Array.isArray(value)
          ? value.flatMap(strings)
          : value && typeof value === "object"
            ? Object.values(value).flatMap(strings)
            : [];
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        expect((jsonStringSpans(text) ?? []).map((s) => s.value)).toEqual(strings(JSON.parse(text)));
      }),
      { seed: 20261127, numRuns: 300 },
    );
  });
});

describe("hasDuplicateKeys", () => {
  it("finds a key given twice in one object, however escaped, and only there", () => {
    expect(hasDuplicateKeys('{"choices":[1],"choices":[2]}')).toBe(true);
    expect(hasDuplicateKeys('{"choices":[1],"\\u0063hoices":[2]}')).toBe(true);
    expect(hasDuplicateKeys('{"a":{"k":1},"b":{"k":2},"c":"k"}')).toBe(false);
    expect(hasDuplicateKeys('[{"k":1},{"k":2}]')).toBe(false);
  });
});
