/**
 * `node dist/scripts/export-features.js DIR [--bits N]`: writes the prompt-injection rows of the
 * datasets and the written files, featurized as the run-time scorer featurizes them (see
 * scripts/models/feature-export.ts), to DIR for the PyTorch trainer.
 */
import { parseArgs } from "node:util";
import { jsonlFiles, PROMPT_INJECTION_DIR, promptInjectionFiles, readRows } from "./models/dataset.js";
import { exportFeatures } from "./models/feature-export.js";
import { RECIPES } from "./models/prompt-injection-training.js";

const { values: args, positionals } = parseArgs({ options: { bits: { type: "string" } }, allowPositionals: true });
const dir = positionals[0];
if (dir === undefined) {
  console.error("usage: export-features DIR [--bits N]");
  process.exit(2);
}
if (jsonlFiles(PROMPT_INJECTION_DIR).length === 0) {
  console.error(`No files in ${PROMPT_INJECTION_DIR}: the datasets folder is needed.`);
  process.exit(1);
}
const recipe = RECIPES.logistic;
const spec = { ...recipe.spec, ...(args.bits === undefined ? {} : { bits: Number(args.bits) }) };
const rows = promptInjectionFiles().flatMap((f) => readRows(f).rows);
const started = performance.now();
const written = exportFeatures(rows, spec, recipe.window, dir);
console.log(
  `${rows.length} rows, ${written.spans} spans, ${written.features} features → ${dir} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
