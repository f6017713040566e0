/**
 * `npm run eval:models [--check ID]... [DIR...]`: evaluates the model checks declared in
 * scripts/models/evaluated-checks.ts on labelled JSONL files (`{text, label}`, optional
 * `category`), through the engine as a request would run them. Without folders, each check runs
 * on the test part of its own split. Prints precision, recall, F1, accuracy and confusion counts
 * per check, per file, per category and per language, and the cost per KB; writes
 * bench/results/models.json and bench/results/models.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createEngine } from "../index.js";
import { jsonlFiles, type Metrics, metrics, readRows, ROOT, type Row } from "./models/dataset.js";
import { EVALUATED_CHECKS } from "./models/evaluated-checks.js";

const { values: args, positionals: dirs } = parseArgs({
  options: { check: { type: "string", multiple: true } },
  allowPositionals: true,
});

/** The language a category names (`xquad_question_de`, `generated_attack_ko`), if any. */
function languageOf(category: string): string | undefined {
  return /_(ar|de|el|en|es|fr|hi|it|ja|ko|pt|ro|ru|th|tr|vi|zh)(?:_|$)/.exec(category)?.[1];
}

interface Group {
  name: string;
  rows: number;
  metrics: Metrics;
}

/** Metrics per value of a key. */
function groups(rows: readonly Row[], predicted: readonly boolean[], key: (r: Row) => string | undefined): Group[] {
  const by = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const k = key(r);
    if (k === undefined) return;
    if (!by.has(k)) by.set(k, []);
    by.get(k)?.push(i);
  });
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, indices]) => ({
      name,
      rows: indices.length,
      metrics: metrics(
        indices.map((i) => (rows[i] as Row).label),
        indices.map((i) => predicted[i] as boolean),
      ),
    }));
}

const f = (n: number) => n.toFixed(3);
const line = (name: string, rows: number, m: Metrics) =>
  `| ${name} | ${rows} | ${f(m.precision)} | ${f(m.recall)} | ${f(m.f1)} | ${f(m.accuracy)} | ${m.tp} | ${m.fp} | ${m.tn} | ${m.fn} |`;
const HEADER =
  "| | rows | precision | recall | F1 | accuracy | TP | FP | TN | FN |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

const engine = await createEngine();
const selected = EVALUATED_CHECKS.filter((c) => !args.check || args.check.includes(c.check));
const report: Record<string, unknown>[] = [];
const markdown: string[] = [
  `# Model checks: evaluation`,
  "",
  `${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? "unknown CPU"} (${os.cpus().length} cores), Node ${process.version}. Data: ${dirs.length > 0 ? dirs.join(", ") : "the test part of each check's own split"}.`,
];
for (const evaluated of selected) {
  const rows =
    dirs.length > 0
      ? dirs.filter(evaluated.accepts).flatMap((d) => jsonlFiles(d).flatMap((file) => readRows(file).rows))
      : evaluated.defaultRows();
  if (rows.length === 0) {
    console.error(
      `${evaluated.check}: no labelled rows (is ${dirs.length > 0 ? dirs.join(", ") : "../shared/datasets"} there?); skipped.`,
    );
    continue;
  }
  const predicted: boolean[] = [];
  let milliseconds = 0;
  let bytes = 0;
  const run = async (text: string) =>
    (
      await engine.evaluate({
        side: "input",
        requestType: "chatComplete",
        request: { model: "m", messages: [{ role: "user", content: text }] },
        guardrails: [{ checks: [{ id: evaluated.check, parameters: evaluated.parameters }] }],
      })
    ).results[0]?.checks[0];
  // One run first, so loading the model's weights is not counted as the first row's cost.
  await run((rows[0] as Row).text);
  for (const row of rows) {
    const result = await run(row.text);
    if (!result || result.error)
      throw new Error(`${evaluated.check} errored on a row of ${row.file}: ${JSON.stringify(result?.error)}`);
    predicted.push(result.verdict === false);
    milliseconds += result.execution_time;
    bytes += Buffer.byteLength(row.text);
  }
  const overall = metrics(
    rows.map((r) => r.label),
    predicted,
  );
  const perFile = groups(rows, predicted, (r) => r.file);
  const perCategory = groups(rows, predicted, (r) => r.category);
  const perLanguage = groups(rows, predicted, (r) => languageOf(r.category));
  const msPerKb = milliseconds / (bytes / 1024);
  report.push({
    check: evaluated.check,
    parameters: evaluated.parameters,
    detects: evaluated.detects,
    rows: rows.length,
    ...overall,
    msPerKb,
    perFile,
    perCategory,
    perLanguage,
  });
  markdown.push(
    "",
    `## ${evaluated.check} (fails on: ${evaluated.detects})`,
    "",
    `${rows.length} rows, ${(bytes / 1024).toFixed(0)} KB; ${msPerKb.toFixed(3)} ms per KB inline (check time as the engine reports it).`,
    "",
    HEADER,
    line("**all**", rows.length, overall),
    ...perFile.map((g) => line(g.name, g.rows, g.metrics)),
    "",
    "Per language (categories that name one):",
    "",
    HEADER,
    ...perLanguage.map((g) => line(g.name, g.rows, g.metrics)),
    "",
    "<details><summary>Per category</summary>",
    "",
    HEADER,
    ...perCategory.map((g) => line(g.name, g.rows, g.metrics)),
    "",
    "</details>",
  );
}
await engine.close();
const results = path.join(ROOT, "bench", "results");
mkdirSync(results, { recursive: true });
writeFileSync(
  path.join(results, "models.json"),
  `${JSON.stringify({ date: new Date().toISOString(), cpu: os.cpus()[0]?.model, node: process.version, dirs, checks: report }, null, 2)}\n`,
);
writeFileSync(path.join(results, "models.md"), `${markdown.join("\n")}\n`);
console.log(markdown.join("\n"));
