/**
 * `node dist/scripts/leave-one-out.js [--by source|family]... [--only GROUP,...] [--architecture logistic|mlp|embedding] [--recipe JSON] [--name NAME]`:
 * the leave-one-source-out and leave-one-family-out tables of a prompt-injection recipe (see
 * scripts/models/leave-one-out.ts), printed as Markdown and written to
 * bench/results/models-loo-<name>.json, so a recipe is judged on data it never saw. `--only`
 * holds out only the groups named (to split a long run across processes).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { jsonlFiles, PROMPT_INJECTION_DIR, promptInjectionFiles, readRows, ROOT } from "./models/dataset.js";
import { heldOutRow, type LeaveOutBy, leaveOneOut, leaveOneOutMarkdown } from "./models/leave-one-out.js";
import { type Recipe, recipeNamed, SHIPPED_RECIPE } from "./models/prompt-injection-training.js";

const { values: args } = parseArgs({
  options: {
    by: { type: "string", multiple: true },
    architecture: { type: "string", default: SHIPPED_RECIPE },
    recipe: { type: "string", default: "{}" },
    name: { type: "string" },
    only: { type: "string" },
  },
});
const architecture = args.architecture ?? SHIPPED_RECIPE;
const recipe: Recipe = { ...recipeNamed(architecture), ...(JSON.parse(args.recipe) as Partial<Recipe>) };
const by = (args.by ?? ["source", "family"]).map((b): LeaveOutBy => {
  if (b !== "source" && b !== "family") throw new Error(`--by ${b}: give source or family`);
  return b;
});
if (jsonlFiles(PROMPT_INJECTION_DIR).length === 0) {
  console.error(`No files in ${PROMPT_INJECTION_DIR}: the datasets folder is needed.`);
  process.exit(1);
}
const rows = promptInjectionFiles().flatMap((f) => readRows(f).rows);
const runs = by.map((b) => {
  console.log(`\nLeave one ${b} out:\n`);
  const run = leaveOneOut(rows, b, recipe, (g) => console.log(heldOutRow(g)), args.only?.split(","));
  console.log(`\n${leaveOneOutMarkdown(run).join("\n")}`);
  return run;
});
mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
writeFileSync(
  path.join(ROOT, "bench", "results", `models-loo-${args.name ?? architecture}.json`),
  `${JSON.stringify({ date: new Date().toISOString(), recipe, runs }, null, 2)}\n`,
);
