/**
 * Leave-one-source-out figures of the prompt-injection recipe: for each source file S, train on
 * the training part of every other file, choose the threshold on their validation part, and
 * score all of S, a source the model never saw. Also trains on every file and reports the
 * validation F1, so a recipe is judged on both. Writes bench/results/models-loso-<name>.json and
 * prints a Markdown table. Run with
 * `node dist/scripts/models/leave-one-source-out.js [--architecture mlp] [--recipe '{"l2":1e-5}'] [--name NAME]`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { jsonlFiles, metrics, partOf, PROMPT_INJECTION_DIR, readRows, ROOT, WRITTEN_DIR } from "./dataset.js";
import { chooseThreshold, RECIPES, type Recipe, scoreRows, trainModel } from "./prompt-injection-training.js";

const { values: args } = parseArgs({
  options: {
    architecture: { type: "string", default: "logistic" },
    recipe: { type: "string", default: "{}" },
    name: { type: "string" },
  },
});
const architecture = args.architecture === "mlp" ? "mlp" : "logistic";
const recipe: Recipe = { ...RECIPES[architecture], ...(JSON.parse(args.recipe) as Partial<Recipe>) };
const files = jsonlFiles(PROMPT_INJECTION_DIR);
if (files.length === 0) {
  console.error(`No files in ${PROMPT_INJECTION_DIR}: the datasets folder is needed.`);
  process.exit(1);
}
const bySource = files.map((f) => readRows(f).rows);
const written = jsonlFiles(WRITTEN_DIR).flatMap((f) => readRows(f).rows);
const pct = (n: number) => (n * 100).toFixed(1);

/** Trains on the training part of rows; returns the scorer and the threshold chosen on their validation part. */
function fit(rows: typeof written) {
  const model = trainModel(
    rows.filter((r) => partOf(r.text) === "train"),
    recipe,
  );
  const validation = rows.filter((r) => partOf(r.text) === "validation");
  const scores = scoreRows(model.scorer, validation);
  const labels = validation.map((r) => r.label);
  const threshold = chooseThreshold(scores, labels);
  return {
    model,
    threshold,
    validation: metrics(
      labels,
      scores.map((s) => s >= threshold),
    ),
    validationAtHalf: metrics(
      labels,
      scores.map((s) => s >= 0.5),
    ),
  };
}

const full = fit([...bySource.flat(), ...written]);
console.log(
  `All sources: validation F1 ${full.validation.f1.toFixed(3)} at ${full.threshold} (precision ${full.validation.precision.toFixed(3)}, recall ${full.validation.recall.toFixed(3)}); F1 ${full.validationAtHalf.f1.toFixed(3)} at 0.5\n`,
);
console.log(
  `| held-out source | rows | attacks | threshold | precision | recall | F1 | false-positive rate |\n|---|---:|---:|---:|---:|---:|---:|---:|`,
);
const results = [];
/** Each held-out source's labels and scores, for the sweep over fixed thresholds below. */
const scored: Array<{ labels: number[]; scores: number[] }> = [];
for (let s = 0; s < files.length; s++) {
  const heldOut = bySource[s] ?? [];
  const { model, threshold } = fit([...bySource.filter((_, i) => i !== s).flat(), ...written]);
  const scores = scoreRows(model.scorer, heldOut);
  scored.push({ labels: heldOut.map((r) => r.label), scores });
  const m = metrics(
    heldOut.map((r) => r.label),
    scores.map((x) => x >= threshold),
  );
  const name = path.basename(files[s] as string);
  const attacks = heldOut.filter((r) => r.label === 1).length;
  const fpr = m.fp + m.tn === 0 ? null : m.fp / (m.fp + m.tn);
  results.push({ source: name, rows: heldOut.length, attacks, threshold, ...m, falsePositiveRate: fpr });
  console.log(
    `| ${name} | ${heldOut.length} | ${attacks} | ${threshold} | ${m.tp + m.fp === 0 ? "–" : pct(m.precision)} | ${attacks === 0 ? "–" : pct(m.recall)} | ${attacks === 0 || m.tp + m.fp === 0 ? "–" : pct(m.f1)} | ${fpr === null ? "–" : pct(fpr)} |`,
  );
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const meanRecall = mean(results.filter((r) => r.attacks > 0).map((r) => r.recall));
const meanFalsePositiveRate = mean(results.flatMap((r) => (r.falsePositiveRate === null ? [] : [r.falsePositiveRate])));
console.log(`\nMean over held-out sources: recall ${pct(meanRecall)}%, false-positive rate ${pct(meanFalsePositiveRate)}%`);
// The same held-out scores at fixed thresholds: what a default threshold would give on new sources.
const sweep = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8].map((threshold) => {
  const perSource = scored.map(({ labels, scores }) =>
    metrics(
      labels,
      scores.map((x) => x >= threshold),
    ),
  );
  const recalls = perSource.filter((m) => m.tp + m.fn > 0).map((m) => m.recall);
  const rates = perSource.filter((m) => m.fp + m.tn > 0).map((m) => m.fp / (m.fp + m.tn));
  return { threshold, meanRecall: mean(recalls), meanFalsePositiveRate: mean(rates) };
});
console.log(`\n| fixed threshold | mean recall | mean false-positive rate |\n|---:|---:|---:|`);
for (const row of sweep) console.log(`| ${row.threshold} | ${pct(row.meanRecall)} | ${pct(row.meanFalsePositiveRate)} |`);
mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(
  path.join(ROOT, "bench", "results", `models-loso-${args.name ?? architecture}.json`),
  `${JSON.stringify(
    {
      recipe,
      validation: { threshold: full.threshold, ...full.validation, f1AtHalf: full.validationAtHalf.f1 },
      meanRecall,
      meanFalsePositiveRate,
      sweep,
      results,
    },
    null,
    2,
  )}\n`,
);
