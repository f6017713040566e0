/**
 * `npm run train:models`: trains the shipped models from the labelled files in
 * ../shared/datasets and writes their weights files under plugins/model/weights/. Seeded: run
 * twice on the same files, it writes the same bytes.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  jsonlFiles,
  MULTILINGUAL_ATTACKS,
  metrics,
  partOf,
  PROMPT_INJECTION_DIR,
  readRows,
  ROOT,
  type Row,
} from "./models/dataset.js";
import { chooseThreshold, RECIPES, scoreRows, trainModel } from "./models/prompt-injection-training.js";

const { values: args } = parseArgs({ options: { architecture: { type: "string", default: "logistic" } } });
const architecture = args.architecture === "mlp" ? "mlp" : "logistic";

const files = [...jsonlFiles(PROMPT_INJECTION_DIR), MULTILINGUAL_ATTACKS].filter(
  (f) => f !== MULTILINGUAL_ATTACKS || jsonlFiles(path.dirname(f)).includes(f),
);
if (files.length <= 1) {
  console.error(`No training files in ${PROMPT_INJECTION_DIR}: the datasets folder is needed to train.`);
  process.exit(1);
}
const read = files.map(readRows);
const all: Row[] = read.flatMap((r) => r.rows);
const train = all.filter((r) => partOf(r.text) === "train");
const validation = all.filter((r) => partOf(r.text) === "validation");

const started = performance.now();
const model = trainModel(train, RECIPES[architecture]);
const scores = scoreRows(model.scorer, validation);
const labels = validation.map((r) => r.label);
const threshold = chooseThreshold(scores, labels);
const m = metrics(
  labels,
  scores.map((s) => s >= threshold),
);
const bytes = model.write(threshold, {
  files: read.map((r) => r.record),
  split: "sha256 of NFKC lower-cased letters and digits, mod 100: <70 train, <85 validation, else test",
  rows: { train: train.length, validation: validation.length },
});
const out = path.join(ROOT, "plugins", "model", "weights", "prompt-injection.ggmw");
writeFileSync(out, bytes);
console.log(
  `prompt-injection (${architecture}): ${train.length} training rows, threshold ${threshold} on ${validation.length} validation rows: ` +
    `precision ${m.precision.toFixed(3)} recall ${m.recall.toFixed(3)} F1 ${m.f1.toFixed(3)}; ${(bytes.length / 1024).toFixed(0)} KB in ${((performance.now() - started) / 1000).toFixed(1)} s → ${path.relative(ROOT, out)}`,
);
