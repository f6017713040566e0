/**
 * Leave-one-source-out figures of the prompt-injection recipe: for each source file S, train on
 * the training part of every other file, choose the threshold on their validation part, and
 * score all of S, a source the model never saw. Writes bench/results/models-loso.json and prints
 * a Markdown table. Run with `node dist/scripts/models/leave-one-source-out.js [--architecture mlp]`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { jsonlFiles, MULTILINGUAL, metrics, partOf, PROMPT_INJECTION_DIR, readRows, ROOT } from "./dataset.js";
import { chooseThreshold, RECIPES, scoreRows, trainModel } from "./prompt-injection-training.js";

const { values: args } = parseArgs({ options: { architecture: { type: "string", default: "logistic" } } });
const architecture = args.architecture === "mlp" ? "mlp" : "logistic";
const files = jsonlFiles(PROMPT_INJECTION_DIR);
if (files.length === 0) {
  console.error(`No files in ${PROMPT_INJECTION_DIR}: the datasets folder is needed.`);
  process.exit(1);
}
const bySource = files.map((f) => readRows(f).rows);
const extra = readRows(MULTILINGUAL).rows;
const results = [];
const pct = (n: number) => (n * 100).toFixed(1);
console.log(
  `| held-out source | rows | attacks | threshold | precision | recall | F1 | false-positive rate |\n|---|---:|---:|---:|---:|---:|---:|---:|`,
);
for (let s = 0; s < files.length; s++) {
  const heldOut = bySource[s] ?? [];
  const rest = [...bySource.filter((_, i) => i !== s).flat(), ...extra];
  const model = trainModel(
    rest.filter((r) => partOf(r.text) === "train"),
    RECIPES[architecture],
  );
  const validation = rest.filter((r) => partOf(r.text) === "validation");
  const threshold = chooseThreshold(
    scoreRows(model.scorer, validation),
    validation.map((r) => r.label),
  );
  const scores = scoreRows(model.scorer, heldOut);
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
mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(
  path.join(ROOT, "bench", "results", `models-loso-${architecture}.json`),
  `${JSON.stringify({ architecture, results }, null, 2)}\n`,
);
