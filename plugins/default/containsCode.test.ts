import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { CheckContext } from "../../core/plugin-api.js";
import { CheckRegistry } from "../../core/registry.js";
import { findCode, isProse } from "./code-detection/classify.js";
import { tagOf } from "./code-detection/fences.js";
import { CODE_FIGURES } from "./code-detection/figures.js";
import { CODE_FORMATS, type CodeFormat, formatNamed } from "./code-detection/formats.js";
import containsCode from "./containsCode.js";
import plugin from "./index.js";

const registry = new CheckRegistry();
registry.register(plugin, "test");

function params(given: Record<string, unknown> = {}) {
  return registry.prepareCheck({ id: "default.containsCode", parameters: given }, "output", "check").parameters as {
    format?: string;
    not: boolean;
  };
}

function context(text: string): CheckContext {
  return {
    guardrailId: "g",
    side: "output",
    requestType: "chatComplete",
    text,
    request: {},
    metadata: {},
    headers: {},
    signal: new AbortController().signal,
    settings: {},
  };
}

async function run(text: string, given: Record<string, unknown> = {}) {
  return await containsCode.run(context(text), params(given));
}

interface Snippet {
  id: string;
  formats: CodeFormat[];
  text: string;
}

const snippets = parse(readFileSync(new URL("./fixtures/code-snippets.yaml", import.meta.url), "utf8")) as Snippet[];

function measure() {
  const counts = new Map<CodeFormat, { tp: number; fp: number; fn: number }>(
    CODE_FORMATS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }]),
  );
  const misses: string[] = [];
  for (const snippet of snippets) {
    const found = new Set(findCode(snippet.text).flatMap((e) => (e.format ? [e.format] : [])));
    for (const format of CODE_FORMATS) {
      const expected = snippet.formats.includes(format);
      const got = found.has(format);
      const c = counts.get(format)!;
      if (expected && got) c.tp++;
      else if (got) {
        c.fp++;
        misses.push(`FP ${format} in ${snippet.id}`);
      } else if (expected) {
        c.fn++;
        misses.push(`FN ${format} in ${snippet.id} (found ${[...found].join(", ") || "nothing"})`);
      }
    }
  }
  return { counts, misses };
}

const ratio = (n: number, d: number) => (d === 0 ? 1 : n / d);
const round2 = (x: number) => Math.round(x * 100) / 100;

describe("containsCode: precision and recall on the labelled set", () => {
  const { counts, misses } = measure();

  it("has at least 150 snippets covering every format, and prose", () => {
    expect(snippets.length).toBeGreaterThanOrEqual(150);
    for (const format of CODE_FORMATS)
      expect(snippets.filter((s) => s.formats.includes(format)).length, format).toBeGreaterThanOrEqual(6);
    expect(snippets.filter((s) => s.formats.length === 0).length).toBeGreaterThanOrEqual(40);
    for (const s of snippets) for (const f of s.formats) expect(CODE_FORMATS, s.id).toContain(f);
  });

  it("reaches precision ≥ 0.95 and recall ≥ 0.9 overall, and ≥ 0.85 / 0.85 per format", () => {
    if (misses.length) console.log(misses.join("\n"));
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const [format, c] of counts) {
      tp += c.tp;
      fp += c.fp;
      fn += c.fn;
      expect(ratio(c.tp, c.tp + c.fp), `precision of ${format}`).toBeGreaterThanOrEqual(0.85);
      expect(ratio(c.tp, c.tp + c.fn), `recall of ${format}`).toBeGreaterThanOrEqual(0.85);
    }
    expect(ratio(tp, tp + fp), "overall precision").toBeGreaterThanOrEqual(0.95);
    expect(ratio(tp, tp + fn), "overall recall").toBeGreaterThanOrEqual(0.9);
  });

  it("matches the figures written in the check's notes", () => {
    const measured = Object.fromEntries(
      [...counts].map(([f, c]) => [
        f,
        { precision: round2(ratio(c.tp, c.tp + c.fp)), recall: round2(ratio(c.tp, c.tp + c.fn)), support: c.tp + c.fn },
      ]),
    );
    expect(CODE_FIGURES.perFormat).toEqual(measured);
    expect(CODE_FIGURES.snippets).toBe(snippets.length);
    expect(CODE_FIGURES.proseSnippets).toBe(snippets.filter((s) => s.formats.length === 0).length);
  });
});
