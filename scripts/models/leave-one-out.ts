/**
 * Leave-one-out figures of the prompt-injection recipe, the measure models are chosen by: for
 * each group G (a dataset source file, or a family of written rows), train on the training part
 * of every row outside G, calibrate on their validation part, and score all of G, rows the model
 * never saw anything like. Sources tell how the model does on data from elsewhere; families tell
 * how it does on a kind of attack (or of hard negative) it was never shown.
 */
import path from "node:path";
import { type Metrics, metrics, partOf, type Row } from "./dataset.js";
import { calibrate, fitRecipe, type Recipe, scoreRows } from "./prompt-injection-training.js";
import { leaveOneOutTorch } from "./torch-trainer.js";

/** What rows are grouped by: the dataset file they came from, or the family a written row names. */
export type LeaveOutBy = "source" | "family";

/** The group of a row, or undefined when the row is in no group (always trained on). */
export function groupOf(row: Row, by: LeaveOutBy): string | undefined {
  if (by === "family") return row.family;
  return row.source.startsWith("generated:") ? undefined : path.basename(row.file, ".jsonl");
}

/** One held-out group's figures. */
export interface HeldOut {
  group: string;
  rows: number;
  attacks: number;
  threshold: number;
  metrics: Metrics;
  /** Null when the group has no benign rows. */
  falsePositiveRate: number | null;
}

/** The figures of one leave-one-out run. */
export interface LeaveOneOut {
  by: LeaveOutBy;
  groups: HeldOut[];
  /** Mean recall over the groups with attacks, mean false-positive rate over those with benign rows. */
  meanRecall: number;
  meanFalsePositiveRate: number;
  /** The same held-out scores at fixed thresholds: what a default threshold would give on new data. */
  sweep: Array<{ threshold: number; meanRecall: number; meanFalsePositiveRate: number }>;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const rateOf = (m: Metrics) => (m.fp + m.tn === 0 ? null : m.fp / (m.fp + m.tn));

/** Trains on the training part of rows; returns the calibrated scorer and the balanced threshold. */
function fit(rows: readonly Row[], recipe: Recipe) {
  const model = fitRecipe(rows, recipe);
  const calibration = calibrate(
    model.scorer,
    rows.filter((r) => partOf(r.text) === "validation"),
    recipe.segments,
  );
  return { scorer: model.calibrated(calibration), threshold: calibration.thresholds.balanced };
}

/**
 * Runs leave-one-out over the groups `by` names (or only those in `only`); `progress` hears of
 * each group as it is done.
 */
export function leaveOneOut(
  rows: readonly Row[],
  by: LeaveOutBy,
  recipe: Recipe,
  progress: (heldOut: HeldOut) => void = () => {},
  only?: readonly string[],
): LeaveOneOut {
  // PyTorch recipes run the whole table in one Python process over the exported features.
  if (recipe.torch !== undefined) return leaveOneOutTorch(rows, by, recipe.spec, recipe.window, recipe.torch, only);
  const names = [...new Set(rows.flatMap((r) => groupOf(r, by) ?? []))]
    .filter((name) => only === undefined || only.includes(name))
    .sort();
  const groups: HeldOut[] = [];
  const scored: Array<{ labels: number[]; scores: number[] }> = [];
  for (const group of names) {
    const heldOut = rows.filter((r) => groupOf(r, by) === group);
    const { scorer, threshold } = fit(
      rows.filter((r) => groupOf(r, by) !== group),
      recipe,
    );
    const scores = scoreRows(scorer, heldOut);
    const labels = heldOut.map((r) => r.label);
    scored.push({ labels, scores });
    const m = metrics(
      labels,
      scores.map((s) => s >= threshold),
    );
    const result = {
      group,
      rows: heldOut.length,
      attacks: labels.filter((l) => l === 1).length,
      threshold,
      metrics: m,
      falsePositiveRate: rateOf(m),
    };
    groups.push(result);
    progress(result);
  }
  const sweep = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((threshold) => {
    const per = scored.map(({ labels, scores }) =>
      metrics(
        labels,
        scores.map((s) => s >= threshold),
      ),
    );
    return {
      threshold,
      meanRecall: mean(per.filter((m) => m.tp + m.fn > 0).map((m) => m.recall)),
      meanFalsePositiveRate: mean(per.flatMap((m) => rateOf(m) ?? [])),
    };
  });
  return {
    by,
    groups,
    meanRecall: mean(groups.filter((g) => g.attacks > 0).map((g) => g.metrics.recall)),
    meanFalsePositiveRate: mean(groups.flatMap((g) => g.falsePositiveRate ?? [])),
    sweep,
  };
}

const pct = (n: number) => (n * 100).toFixed(1);

/** One held-out group as a Markdown table row. */
export function heldOutRow(g: HeldOut): string {
  const m = g.metrics;
  return `| ${g.group} | ${g.rows} | ${g.attacks} | ${g.threshold} | ${g.attacks === 0 ? "–" : pct(m.recall)} | ${g.falsePositiveRate === null ? "–" : pct(g.falsePositiveRate)} |`;
}

/** A leave-one-out run as Markdown: the table, the means and the fixed-threshold sweep. */
export function leaveOneOutMarkdown(run: LeaveOneOut): string[] {
  return [
    `| held-out ${run.by} | rows | attacks | threshold | recall % | false-positive rate % |`,
    "|---|---:|---:|---:|---:|---:|",
    ...run.groups.map(heldOutRow),
    `| **mean** | | | | **${pct(run.meanRecall)}** | **${pct(run.meanFalsePositiveRate)}** |`,
    "",
    "The same held-out scores at fixed thresholds:",
    "",
    "| threshold | mean recall % | mean false-positive rate % |",
    "|---:|---:|---:|",
    ...run.sweep.map((s) => `| ${s.threshold} | ${pct(s.meanRecall)} | ${pct(s.meanFalsePositiveRate)} |`),
  ];
}
