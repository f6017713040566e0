/**
 * `npm run eval:models [--check ID]... [--skip-leave-out] [DIR...]`: evaluates the model checks
 * declared in scripts/models/evaluated-checks.ts on labelled JSONL files (`{text, label}`,
 * optional `category`, `family`, `language`), through the engine as a request would run them.
 * Without folders, each check runs on the test part of its own split. Prints precision, recall,
 * F1 and confusion counts per check, per file, per family and per language; for a check with
 * sensitivity presets, each preset's recall and false-positive rate per family and language and
 * the over-defense table; the leave-one-source-out and leave-one-family-out tables of the
 * prompt-injection recipe; and the cost, per KB on texts of 1 KB or more and per call on short
 * texts, after a warm-up. Writes bench/results/models.json and bench/results/models.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createEngine } from "../index.js";
import { jsonlFiles, type Metrics, metrics, promptInjectionFiles, readRows, ROOT, type Row } from "./models/dataset.js";
import { EVALUATED_CHECKS, languageOf, OVER_DEFENSE_FAMILIES } from "./models/evaluated-checks.js";
import { leaveOneOut, leaveOneOutMarkdown } from "./models/leave-one-out.js";
import { RECIPES, SHIPPED_RECIPE } from "./models/prompt-injection-training.js";

const { values: args, positionals: dirs } = parseArgs({
  options: { check: { type: "string", multiple: true }, "skip-leave-out": { type: "boolean", default: false } },
  allowPositionals: true,
});

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
const pct = (n: number) => (n * 100).toFixed(1);
const line = (name: string, rows: number, m: Metrics) =>
  `| ${name} | ${rows} | ${f(m.precision)} | ${f(m.recall)} | ${f(m.f1)} | ${f(m.accuracy)} | ${m.tp} | ${m.fp} | ${m.tn} | ${m.fn} |`;
const HEADER =
  "| | rows | precision | recall | F1 | accuracy | TP | FP | TN | FN |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
/** Recall over attacks and false-positive rate over benign rows, "–" where a group has none. */
const recallOf = (m: Metrics) => (m.tp + m.fn === 0 ? "–" : `${pct(m.recall)} (${m.tp}/${m.tp + m.fn})`);
const rateOf = (m: Metrics) => (m.fp + m.tn === 0 ? "–" : `${pct(m.fp / (m.fp + m.tn))} (${m.fp}/${m.fp + m.tn})`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const engine = await createEngine();
const selected = EVALUATED_CHECKS.filter((c) => !args.check || args.check.includes(c.check));
const report: Record<string, unknown>[] = [];
const markdown: string[] = [
  `# Model checks: evaluation`,
  "",
  `${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? "unknown CPU"} (${os.cpus().length} cores, load average ${os.loadavg()[0]?.toFixed(1)} at the start), Node ${process.version}. Data: ${dirs.length > 0 ? dirs.join(", ") : "the test part of each check's own split"}.`,
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
  const scores: number[] = [];
  const run = async (text: string) =>
    (
      await engine.evaluate({
        side: "input",
        requestType: "chatComplete",
        request: { model: "m", messages: [{ role: "user", content: text }] },
        guardrails: [{ checks: [{ id: evaluated.check, parameters: evaluated.parameters }] }],
      })
    ).results[0]?.checks[0];
  // A warm-up first, so loading the weights and compiling the hot paths are not counted.
  for (const row of rows.slice(0, 50)) await run(row.text);
  const long = { ms: 0, bytes: 0, rows: 0 };
  const short: number[] = [];
  for (const row of rows) {
    const result = await run(row.text);
    if (!result || result.error)
      throw new Error(`${evaluated.check} errored on a row of ${row.file}: ${JSON.stringify(result?.error)}`);
    predicted.push(result.verdict === false);
    scores.push(typeof result.data?.score === "number" ? result.data.score : Number.NaN);
    const bytes = Buffer.byteLength(row.text);
    if (bytes >= 1024) {
      long.ms += result.execution_time;
      long.bytes += bytes;
      long.rows++;
    } else short.push(result.execution_time);
  }
  const overall = metrics(
    rows.map((r) => r.label),
    predicted,
  );
  const perFile = groups(rows, predicted, (r) => r.file);
  const perFamily = groups(rows, predicted, (r) => r.family);
  const perLanguage = groups(rows, predicted, languageOf);
  const perCategory = groups(rows, predicted, (r) => r.category);
  const cost = {
    msPerKbLong: long.bytes === 0 ? null : long.ms / (long.bytes / 1024),
    longRows: long.rows,
    medianMsPerShortCall: median(short),
    shortRows: short.length,
  };
  markdown.push(
    "",
    `## ${evaluated.check} (fails on: ${evaluated.detects})`,
    "",
    `${rows.length} rows. Cost (check time as the engine reports it, inline, after ${Math.min(50, rows.length)} warm-up calls): ` +
      `${cost.msPerKbLong === null ? "no text of 1 KB or more" : `${cost.msPerKbLong.toFixed(3)} ms per KB on the ${long.rows} texts of 1 KB or more`}; ` +
      `median ${cost.medianMsPerShortCall.toFixed(3)} ms per call on the ${short.length} shorter ones.`,
    "",
    HEADER,
    line("**all**", rows.length, overall),
    "",
    "Per file:",
    "",
    HEADER,
    ...perFile.map((g) => line(g.name, g.rows, g.metrics)),
  );
  if (perFamily.length > 0)
    markdown.push("", "Per family (written rows):", "", HEADER, ...perFamily.map((g) => line(g.name, g.rows, g.metrics)));
  markdown.push(
    "",
    "Per language:",
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
  const entry: Record<string, unknown> = {
    check: evaluated.check,
    parameters: evaluated.parameters,
    detects: evaluated.detects,
    rows: rows.length,
    ...overall,
    cost,
    perFile,
    perFamily,
    perLanguage,
    perCategory,
  };
  // Presets: the score does not depend on the threshold, so each preset's verdicts come from the same run.
  const presets = evaluated.presets?.();
  if (presets !== undefined) {
    const at = Object.fromEntries(Object.entries(presets).map(([name, t]) => [name, scores.map((s) => s >= t)]));
    const names = Object.keys(presets);
    const table = (title: string, key: (r: Row) => string | undefined, only?: readonly string[]) => {
      const per = names.map((name) => groups(rows, at[name] as boolean[], key));
      const keys = (per[0] ?? []).map((g) => g.name).filter((k) => only === undefined || only.includes(k));
      const inTable = rows.flatMap((r, i) => {
        const k = key(r);
        return k !== undefined && keys.includes(k) ? [i] : [];
      });
      return [
        "",
        title,
        "",
        `| | rows | ${names.map((n) => `${n} (${presets[n]}): recall % | ${n}: false positives %`).join(" | ")} |`,
        `|---|---:|${names.map(() => "---:|---:").join("|")}|`,
        `| **all of these** | ${inTable.length} | ${names
          .map((n) => {
            const m = metrics(
              inTable.map((i) => (rows[i] as Row).label),
              inTable.map((i) => (at[n] as boolean[])[i] as boolean),
            );
            return `${recallOf(m)} | ${rateOf(m)}`;
          })
          .join(" | ")} |`,
        ...keys.map((k) => {
          const cells = per.map((groupsOfPreset) => groupsOfPreset.find((g) => g.name === k) as Group);
          return `| ${k} | ${cells[0]?.rows} | ${cells.map((g) => `${recallOf(g.metrics)} | ${rateOf(g.metrics)}`).join(" | ")} |`;
        }),
      ];
    };
    markdown.push(
      ...table("Sensitivity presets, per family:", (r) => r.family),
      ...table("Sensitivity presets, per language:", languageOf),
      ...table(
        "Over-defense (benign texts that look like attacks: trigger words, sensitive topics, quoted and translated attacks, contracts, commit messages):",
        (r) => (r.label === 0 ? r.family : undefined),
        OVER_DEFENSE_FAMILIES,
      ),
    );
    entry.presets = presets;
  }
  // How long one call holds the event loop on a 100 KB document (inline executor).
  if (evaluated.longDocument !== undefined) {
    const document = evaluated.longDocument(100 * 1024);
    await run(document);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const started = performance.now();
    // CPU time is this process's own work: on a busy machine wall-clock time also counts the
    // time the system gave to other processes.
    const cpu = process.cpuUsage();
    const timer = setInterval(() => {}, 1);
    for (let i = 0; i < 5; i++) await run(document);
    clearInterval(timer);
    delay.disable();
    const used = process.cpuUsage(cpu);
    const perCall = (performance.now() - started) / 5;
    const cpuPerCall = (used.user + used.system) / 1000 / 5;
    const kb = Buffer.byteLength(document) / 1024;
    entry.longDocument = {
      bytes: Buffer.byteLength(document),
      msPerCall: perCall,
      cpuMsPerCall: cpuPerCall,
      maxEventLoopDelayMs: delay.max / 1e6,
    };
    markdown.push(
      "",
      `A ${kb.toFixed(0)} KB e-mail with one injected sentence: ${perCall.toFixed(1)} ms per call (${cpuPerCall.toFixed(1)} ms of CPU, ${(cpuPerCall / kb).toFixed(3)} ms of CPU per KB); the event loop was held at most ${(delay.max / 1e6).toFixed(1)} ms at a time.`,
    );
  }
  report.push(entry);
}
await engine.close();

// Models are chosen by these: trained without a source (or a family of written rows), scored on it.
if (!args["skip-leave-out"] && dirs.length === 0 && selected.some((c) => c.check === "model.promptInjection")) {
  const rows = promptInjectionFiles().flatMap((file) => readRows(file).rows);
  if (rows.some((r) => !r.source.startsWith("generated:"))) {
    const runs = (["source", "family"] as const).map((by) => {
      console.error(`leave one ${by} out…`);
      return leaveOneOut(rows, by, RECIPES[SHIPPED_RECIPE]);
    });
    report.push({ check: "model.promptInjection", leaveOneOut: runs });
    for (const run of runs)
      markdown.push(
        "",
        `## model.promptInjection, leave one ${run.by} out`,
        "",
        `Trained without the ${run.by}'s rows, calibrated on the validation part of the others, scored on all of the ${run.by}'s rows.`,
        "",
        ...leaveOneOutMarkdown(run),
      );
  }
}

const results = path.join(ROOT, "bench", "results");
mkdirSync(results, { recursive: true });
writeFileSync(
  path.join(results, "models.json"),
  `${JSON.stringify({ date: new Date().toISOString(), cpu: os.cpus()[0]?.model, node: process.version, loadAverage: os.loadavg(), dirs, checks: report }, null, 2)}\n`,
);
writeFileSync(path.join(results, "models.md"), `${markdown.join("\n")}\n`);
console.log(markdown.join("\n"));
