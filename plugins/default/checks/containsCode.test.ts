import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checkContext, prepareParameters } from "../../../test/support/check-harness.js";
import { cpuMs } from "../../../test/support/cpu-time.js";
import { findCode, isProse } from "../shared/code-detection/classify.js";
import { tagOf } from "../shared/code-detection/fences.js";
import { CODE_FIGURES } from "../shared/code-detection/figures.js";
import { CODE_FORMATS, type CodeFormat, formatNamed } from "../shared/code-detection/formats.js";
import containsCode from "./containsCode.js";

/** Parameters as the registry prepares them (schema defaults applied, load-time validation). */
function params(given: Record<string, unknown> = {}) {
  return prepareParameters(containsCode, given) as {
    format: string;
    not: boolean;
  };
}

async function run(text: string, given: Record<string, unknown> = {}) {
  return await containsCode.run(checkContext({ text, side: "output" }), params(given));
}

interface Snippet {
  id: string;
  formats: CodeFormat[];
  text: string;
}

const snippets = parse(readFileSync(new URL("../fixtures/code-snippets.yaml", import.meta.url), "utf8")) as Snippet[];

const holdout = parse(readFileSync(new URL("../fixtures/code-snippets-holdout.yaml", import.meta.url), "utf8")) as Snippet[];

function measure(set: Snippet[] = snippets) {
  const counts = new Map<CodeFormat, { tp: number; fp: number; fn: number }>(
    CODE_FORMATS.map((f) => [f, { tp: 0, fp: 0, fn: 0 }]),
  );
  const misses: string[] = [];
  for (const snippet of set) {
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

  it("matches the figures written for the second set", () => {
    const { counts: second, misses: secondMisses } = measure(holdout);
    if (secondMisses.length) console.log(secondMisses.join("\n"));
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const c of second.values()) {
      tp += c.tp;
      fp += c.fp;
      fn += c.fn;
    }
    expect(holdout.length).toBe(CODE_FIGURES.holdout.snippets);
    expect(tp + fn).toBe(CODE_FIGURES.holdout.labelled);
    expect(round2(ratio(tp, tp + fp))).toBe(CODE_FIGURES.holdout.precision);
    expect(round2(ratio(tp, tp + fn))).toBe(CODE_FIGURES.holdout.recall);
  });
});

describe("containsCode: the check", () => {
  it("finds a format named case-insensitively or by alias, and fails when absent", async () => {
    const text = "```cpp\nint main() { return 0; }\n```";
    for (const format of ["C++", "c++", "cpp", "CPP"]) expect((await run(text, { format })).verdict, format).toBe(true);
    const python = await run(text, { format: "python" });
    expect(python.verdict).toBe(false);
    expect(python.data?.foundFormats).toEqual(["C++"]);
    expect(python.data?.explanation).toBe("The text contains no Python code (found: C++).");
  });

  it("reports evidence: fence tag or content, with 1-based lines", async () => {
    const text =
      "Intro line here.\n```py\nx = 1\n```\nThen a query:\nSELECT id FROM users WHERE id = 2;\n```\nfunc main() {\n  fmt.Println(1)\n}\n```";
    const outcome = await run(text, { format: "any" });
    expect(outcome.data?.evidence).toEqual([
      { format: "Python", source: "fence", tag: "py", by: "tag", startLine: 2, endLine: 4 },
      { format: "SQL", source: "text", by: "content", startLine: 6, endLine: 6 },
      { format: "Go", source: "fence", by: "content", startLine: 7, endLine: 11 },
    ]);
    expect(outcome.data?.foundFormats).toEqual(["Python", "SQL", "Go"]);
    expect(outcome.verdict).toBe(true);
  });

  it("maps the tags the peer gateway misses: c#, c++, rust, bash, yaml, kt, golang", () => {
    const tags: Array<[string, CodeFormat]> = [
      ["c#", "C#"],
      ["c++", "C++"],
      ["rust", "Rust"],
      ["bash", "Shell"],
      ["yaml", "YAML"],
      ["kt", "Kotlin"],
      ["golang", "Go"],
      ["{.python}", "Python"],
      ["language-ts", "TypeScript"],
      ['python title="app.py"', "Python"],
      ["js:app.js", "JavaScript"],
    ];
    for (const [info, format] of tags) expect(formatNamed(tagOf(info)), info).toBe(format);
  });

  it("treats an unclosed fence as running to the end, and a fence of an unlisted language as no format", () => {
    expect(findCode("```ruby\nputs 1").map((e) => e.format)).toEqual(["Ruby"]);
    const elixir = findCode("```elixir\nIO.puts 1\n```");
    expect(elixir).toEqual([{ format: null, source: "fence", tag: "elixir", by: "tag", startLine: 1, endLine: 3 }]);
  });

  it("needs a format, as the peer gateway does: none is a configuration error; `any` counts code of every format", async () => {
    expect(() => params({})).toThrow(/format/);
    expect(() => params({ not: true })).toThrow(/format/);
    expect((await run("SELECT * FROM t;", { format: "any" })).verdict).toBe(true);
    expect((await run("SELECT * FROM t;", { format: "ANY" })).data?.format).toBeNull();
    expect((await run("Just words in a sentence, nothing more to see here.", { format: "any" })).verdict).toBe(false);
    expect((await run("Just words in a sentence, nothing more to see here.", { format: "any", not: true })).verdict).toBe(true);
    expect((await run("SELECT * FROM t;", { format: "sql", not: true })).verdict).toBe(false);
  });

  it("evaluates empty text: no code", async () => {
    const outcome = await run("", { format: "any" });
    expect(outcome.verdict).toBe(false);
    expect(outcome.data?.foundFormats).toEqual([]);
  });

  it("rejects an unknown format and unknown parameters at load time", () => {
    expect(() => params({ format: "COBOL" })).toThrow(/unknown format "COBOL"/);
    expect(() => params({ format: "Python", language: "python" })).toThrow(/not a known parameter/);
    expect(params({ format: "Python" }).format).toBe("Python");
  });

  it("tells prose from code lines", () => {
    expect(isProse("The meeting moved to Thursday because the client needed time.")).toBe(true);
    expect(isProse("Result:")).toBe(true);
    expect(isProse("for item in items:")).toBe(false);
    expect(isProse("# Install the dependencies before running the build")).toBe(false);
    expect(isProse("const total = items.reduce((a, b) => a + b, 0);")).toBe(false);
  });
});

describe("containsCode: cost", () => {
  it("finishes on 1 MB of adversarial text within a few seconds", async () => {
    const lines = [
      "SELECT a, b FROM t WHERE x = 1 AND y = 2 OR z = 3 FROM FROM FROM",
      'def f(x): import os; console.log(x) === std::cout << fmt.Println( <div class="a"> $this-> ',
      `${"{".repeat(200)}${"[".repeat(200)}`,
      "key: value",
      "- item: x",
      "```",
      `${"a".repeat(3_000)} <- function( %>% |> grep | awk`,
    ];
    let text = "";
    for (let i = 0; text.length < 1_000_000; i++) text += `${lines[i % lines.length]}\n`;
    const oneLine = `${"SELECT x FROM y; def f(x): ".repeat(40_000)}`;
    const yamlish = "a: 1\n".repeat(200_000);
    // Every line different, so no line's votes can be reused.
    let unique = "";
    for (let i = 0; unique.length < 1_000_000; i++)
      unique += `key${i}: $x${i} | grep -v ${i}; SELECT a${i} FROM t${i}; def f${i}(x):\n`;
    const spent = await cpuMs(async () => {
      await run(text, { format: "any" });
      await run(oneLine, { format: "any" });
      await run(yamlish, { format: "any" });
      await run(unique, { format: "any" });
    });
    expect(spent).toBeLessThan(15_000);
  });
});
