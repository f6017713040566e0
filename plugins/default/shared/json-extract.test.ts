import { describe, expect, it } from "vitest";
import { balancedJsonRegions, fencedJsonBlocks, jsonCandidates, parsedJson, reportableJson } from "./json-extract.js";

const spans = (text: string, list: Array<{ start: number; end: number }>) => list.map((c) => text.slice(c.start, c.end));
const values = (text: string) => [...parsedJson(text)].map((c) => c.value);

describe("fencedJsonBlocks", () => {
  it("takes blocks tagged json (any case) or untagged, trimmed, and skips other languages", () => {
    const text = "a\n```json\n{\"a\": 1}\n```\n```python\n{'b': 2}\n```\n~~~\n[1]\n~~~\n```JSON\n 2 \n```";
    expect(spans(text, fencedJsonBlocks(text))).toEqual(['{"a": 1}', "[1]", "2"]);
  });

  it("closes a fence only with the same character and at least the same length; an unclosed fence runs to the end", () => {
    const text = '````json\n{"a": "```"}\n````\n```\n[true]';
    expect(spans(text, fencedJsonBlocks(text))).toEqual(['{"a": "```"}', "[true]"]);
  });

  it("accepts up to three spaces of indentation and ignores empty blocks", () => {
    const text = "   ```json\n   {}\n   ```\n```\n```\n    ```json\n[1]\n";
    expect(spans(text, fencedJsonBlocks(text))).toEqual(["{}"]);
  });
});

describe("balancedJsonRegions", () => {
  it("finds nested objects whole and top-level arrays", () => {
    const text = 'Result: {"a": {"b": [1, {"c": 2}]}} and [1, 2, 3].';
    expect(spans(text, balancedJsonRegions(text))).toEqual(['{"a": {"b": [1, {"c": 2}]}}', "[1, 2, 3]"]);
  });

  it("reads strings as JSON does: brackets and escaped quotes inside them do not count", () => {
    const text = 'x {"a": "}{][", "b": "say \\"hi\\" \\u00e9"} y';
    expect(values(text)).toEqual([{ a: "}{][", b: 'say "hi" é' }]);
  });

  it("finds well-formed JSON nested inside text that is not JSON", () => {
    const text = 'Note {see the object {"ok": true} and the list [1,2]} and {broken';
    expect(spans(text, balancedJsonRegions(text))).toEqual(['{"ok": true}', "[1,2]"]);
    expect(values('{"a": 1, "b": {"c": 2}')).toEqual([{ c: 2 }]);
  });

  it("rejects what JSON rejects: trailing commas, single quotes, bare words, bad numbers, raw line breaks in strings", () => {
    for (const text of [
      '{"a": 1,}',
      "[1,]",
      "{'a': 1}",
      "{a: 1}",
      "[01]",
      "[1.]",
      "[.5]",
      "[+1]",
      '["a\nb"]',
      "[NaN]",
      '{"a" 1}',
      '{"a": }',
    ]) {
      expect(balancedJsonRegions(text), JSON.stringify(text)).toEqual([]);
    }
  });

  it("accepts what JSON accepts: every literal, exponent numbers, empty containers, unicode escapes", () => {
    const text = '[true, false, null, -0.5e+10, 1E3, {}, [], "\\u0041\\n"]';
    expect(values(text)).toEqual([[true, false, null, -0.5e10, 1000, {}, [], "A\n"]]);
  });

  it("survives stray closers and quotes in prose", () => {
    const text = 'He said "hello] and left.\n{"a": [1]} }] ]';
    expect(values(text)).toEqual([{ a: [1] }]);
  });

  it("measures depth", () => {
    const [region] = balancedJsonRegions("[[[1]], {}]");
    expect(region?.depth).toBe(3);
  });
});

describe("jsonCandidates", () => {
  it("offers fenced blocks first, then the scan, without offering a fenced block twice", () => {
    const text = '{"bare": 1}\n```json\n{"fenced": 2}\n```';
    expect(spans(text, [...jsonCandidates(text)])).toEqual(['{"fenced": 2}', '{"bare": 1}']);
  });

  it("finds JSON inside a fenced block that is not JSON as a whole", () => {
    const text = '```\nresult = {"x": 1} # python\n```';
    expect(values(text)).toEqual([{ x: 1 }]);
  });

  it("finds nothing in plain prose or an empty text", () => {
    expect(values("no json here (really) [none]")).toEqual([]);
    expect(values("")).toEqual([]);
  });

  it("handles very deep nesting", () => {
    const depth = 100_000;
    const text = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const [found] = [...parsedJson(text)];
    expect(found?.depth).toBe(depth);
    expect(reportableJson(found!)).toBeNull();
  });
});

describe("reportableJson", () => {
  it("keeps small values and drops long or deep ones", () => {
    const [small] = [...parsedJson('{"a": 1}')];
    expect(reportableJson(small!)).toEqual({ a: 1 });
    const [long] = [...parsedJson(`["${"x".repeat(20_000)}"]`)];
    expect(reportableJson(long!)).toBeNull();
    const deepText = `\`\`\`json\n${"[".repeat(100)}${"]".repeat(100)}\n\`\`\``;
    const [deep] = [...parsedJson(deepText)];
    expect(deep?.source).toBe("fenced");
    expect(reportableJson(deep!)).toBeNull();
  });
});
