/**
 * `npm run train:models`: trains the shipped models from the labelled files in
 * ../shared/datasets and writes their weights files under plugins/model/weights/. Seeded: run
 * twice on the same files, it writes the same bytes.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { calibrated, measure } from "../plugins/model/shared/gibberish-model.js";
import { gibberishCorpus, gibberishLabelled, trainGibberish } from "./models/gibberish-training.js";
import {
  GIBBERISH_DIR,
  jsonlFiles,
  metrics,
  partOf,
  PROMPT_INJECTION_DIR,
  promptInjectionFiles,
  readRows,
  ROOT,
  type Row,
} from "./models/dataset.js";
import { calibrate, fitRecipe, recipeNamed, SHIPPED_RECIPE } from "./models/prompt-injection-training.js";

const { values: args } = parseArgs({
  options: { architecture: { type: "string", default: SHIPPED_RECIPE }, only: { type: "string" } },
});
const architecture = args.architecture ?? SHIPPED_RECIPE;

/** Trains the prompt-injection classifier and writes its weights. */
function promptInjection(): void {
  const read = promptInjectionFiles().map(readRows);
  const all: Row[] = read.flatMap((r) => r.rows);
  const train = all.filter((r) => partOf(r.text) === "train");
  const validation = all.filter((r) => partOf(r.text) === "validation");

  const started = performance.now();
  const recipe = recipeNamed(architecture);
  const model = fitRecipe(all, recipe);
  const calibration = calibrate(model.scorer, validation, recipe.segments);
  const m = calibration.validation;
  const bytes = model.write(calibration, {
    files: read.map((r) => r.record),
    split:
      "smallest sha256 over the folded letters and digits of each line, first 4 bytes mod 100: <70 train, <85 validation, else test",
    rows: { train: train.length, validation: validation.length },
  });
  const out = path.join(ROOT, "plugins", "model", "weights", "prompt-injection.ggmw");
  writeFileSync(out, bytes);
  console.log(
    `prompt-injection (${architecture}): ${train.length} training rows; on ${validation.length} validation rows, thresholds ${JSON.stringify(calibration.thresholds)}, sentence gate ${calibration.segmentGate ?? "none"}: ` +
      `precision ${m.precision.toFixed(3)} recall ${m.recall.toFixed(3)} F1 ${m.f1.toFixed(3)}; ${(bytes.length / 1024).toFixed(0)} KB in ${((performance.now() - started) / 1000).toFixed(1)} s → ${path.relative(ROOT, out)}`,
  );
}

/** Trains the gibberish model and writes its weights. */
function gibberish(): void {
  const started = performance.now();
  const corpus = gibberishCorpus();
  const labelled = gibberishLabelled();
  const train = labelled.rows.filter((r) => partOf(r.text) === "train");
  const validation = labelled.rows.filter((r) => partOf(r.text) === "validation");
  const model = trainGibberish(corpus.rows, train, validation, {
    files: [...corpus.records, ...labelled.records],
    split: "labelled files split as the prompt-injection files; calibration on train, threshold on validation",
    rows: { corpus: corpus.rows.length, train: train.length, validation: validation.length },
  });
  const m = metrics(
    validation.map((r) => r.label),
    validation.map((r) => calibrated(model.calibration, measure(model.tables, r.text).features) >= model.threshold),
  );
  const out = path.join(ROOT, "plugins", "model", "weights", "gibberish.ggmw");
  writeFileSync(out, model.bytes);
  console.log(
    `gibberish: ${corpus.rows.length} corpus rows, ${train.length} calibration rows, threshold ${model.threshold} on ${validation.length} validation rows: ` +
      `precision ${m.precision.toFixed(3)} recall ${m.recall.toFixed(3)} F1 ${m.f1.toFixed(3)}; ${(model.bytes.length / 1024).toFixed(0)} KB in ${((performance.now() - started) / 1000).toFixed(1)} s → ${path.relative(ROOT, out)}`,
  );
}

if (jsonlFiles(PROMPT_INJECTION_DIR).length === 0 || jsonlFiles(GIBBERISH_DIR).length === 0) {
  console.error(`The datasets folder (${path.dirname(PROMPT_INJECTION_DIR)}) is needed to train.`);
  process.exit(1);
}
if (args.only !== "gibberish") promptInjection();
if (args.only !== "prompt-injection") gibberish();
