/**
 * Precision and recall of containsCode on its labelled set (fixtures/code-snippets.yaml), as
 * `containsCode.test.ts` measures them; the test fails when a figure here differs from what it
 * measures, so the notes stay true.
 */
import type { CodeFormat } from "./formats.js";

interface Figure {
  precision: number;
  recall: number;
  /** Snippets labelled with the format. */
  support: number;
}

const perFormat: Record<CodeFormat, Figure> = {
  SQL: { precision: 1, recall: 1, support: 10 },
  Python: { precision: 1, recall: 1, support: 11 },
  TypeScript: { precision: 1, recall: 1, support: 8 },
  JavaScript: { precision: 1, recall: 1, support: 9 },
  Java: { precision: 1, recall: 1, support: 8 },
  "C#": { precision: 1, recall: 1, support: 8 },
  "C++": { precision: 1, recall: 1, support: 8 },
  C: { precision: 1, recall: 1, support: 8 },
  Ruby: { precision: 1, recall: 1, support: 8 },
  PHP: { precision: 1, recall: 1, support: 7 },
  Swift: { precision: 1, recall: 1, support: 7 },
  Kotlin: { precision: 1, recall: 1, support: 7 },
  Go: { precision: 1, recall: 1, support: 8 },
  Rust: { precision: 1, recall: 1, support: 7 },
  Scala: { precision: 1, recall: 1, support: 7 },
  R: { precision: 1, recall: 1, support: 7 },
  Perl: { precision: 1, recall: 1, support: 7 },
  Shell: { precision: 1, recall: 1, support: 11 },
  HTML: { precision: 1, recall: 1, support: 8 },
  CSS: { precision: 1, recall: 1, support: 8 },
  XML: { precision: 1, recall: 1, support: 7 },
  JSON: { precision: 1, recall: 1, support: 8 },
  YAML: { precision: 1, recall: 1, support: 7 },
  Markdown: { precision: 1, recall: 1, support: 7 },
  Dockerfile: { precision: 1, recall: 1, support: 7 },
};

const table = [
  "| format | labelled | precision | recall |",
  "|---|---|---|---|",
  ...Object.entries(perFormat).map(([f, x]) => `| ${f} | ${x.support} | ${x.precision.toFixed(2)} | ${x.recall.toFixed(2)} |`),
].join("\n");

const caveat = `Read these as an upper bound: the set was written alongside the detector. Its first run, before
any tuning, had 4 false negatives and 1 false positive (two Scala snippets missed — a
\`sealed trait\` line no hint admitted, and a for-comprehension taken for R; two JSON answers
after a label such as "Result:" parsed together with the label and missed); each was fixed by a
rule that says why (a hint, Scala collection types and \`for {…} yield\`, capitalised labels ending
with a colon counted as prose). Text unlike this set will do worse.

A second set, \`plugins/default/fixtures/code-snippets-holdout.yaml\` (62 snippets, 52 labelled
formats, 10 of prose), was written after that tuning and measured once as the detector stood:
**precision 0.98, recall 0.85** (44 of 52 found, one false positive). That is the better estimate
of how the check does on text it was not tuned on. Its misses were then fixed with rules that hold
generally (an assignment \`df = …\` is not the \`df\` command; \`pd.\`/\`np.\` calls; JavaScript
\`constructor\` and \`this.x =\`; TypeScript generic and annotated functions and typed \`const\`;
C \`FILE *\` and stdio calls; Rust closures \`(|x|\` and integer types; Scala \`List(…)\`), after
which both sets measure 1.00 / 1.00 — so neither is held out any more.`;

/** Overall figures on the second set: at its first measurement, and now. */
const holdout = { snippets: 62, labelled: 52, firstRun: { precision: 0.98, recall: 0.85 }, precision: 1, recall: 1 };

export const CODE_FIGURES = { snippets: 244, codeSnippets: 195, proseSnippets: 49, perFormat, table, caveat, holdout };
