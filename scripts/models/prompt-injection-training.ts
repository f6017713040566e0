/**
 * The prompt-injection model's training recipe: which rows, how they are weighted, the feature
 * spec and trainer options, how the default threshold is chosen, and the weights file it writes.
 */
import { FoldBuffer, foldText } from "../../plugins/model/shared/fold.js";
import { extractFeatures, type FeatureSpec, FeatureVector } from "../../plugins/model/shared/hashed-features.js";
import { InjectionScorer, WINDOW, windowStarts } from "../../plugins/model/shared/prompt-injection-model.js";
import { encodeWeights } from "../../plugins/model/shared/weights-file.js";
import { type FileRecord, metrics, type Row } from "./dataset.js";
import { classifierOf, type Example, type TrainOptions, train } from "./linear-trainer.js";

/** Bumped whenever the recipe or the trainer changes what a given input produces. */
export const TRAINER_VERSION = "prompt-injection-trainer/2";

/** Minimum precision the default threshold must reach on the validation split. */
export const TARGET_PRECISION = 0.97;

/** The features and trainer settings of each architecture compared. */
export const RECIPES: Record<"logistic" | "mlp", TrainOptions> = {
  logistic: {
    architecture: "logistic",
    spec: { bits: 18, maxCharGram: 5, wordBigrams: true },
    epochs: 6,
    learningRate: 0.1,
    l2: 1e-6,
    seed: 20261123,
  },
  mlp: {
    architecture: "mlp",
    spec: { bits: 17, maxCharGram: 5, wordBigrams: true },
    epochs: 6,
    learningRate: 0.05,
    l2: 1e-6,
    hidden: 16,
    seed: 20261123,
  },
};

/**
 * How much a row counts: the augmented, template-filled source half; the rows written in other
 * languages three times, since they are few against thousands of English rows.
 */
function sourceWeight(row: Row): number {
  if (row.file === "promptshield.jsonl") return 0.5;
  return row.source.startsWith("generated:") ? 3 : 1;
}

/** Rows as weighted training examples: classes balanced, sources weighted. */
export function examplesOf(rows: readonly Row[], spec: FeatureSpec): Example[] {
  const positives = rows.filter((r) => r.label === 1).length;
  const negatives = rows.length - positives;
  const buffer = new FoldBuffer();
  const vector = new FeatureVector(spec);
  const examples: Example[] = [];
  for (const row of rows) {
    const weight =
      sourceWeight(row) *
      (row.label === 1 ? rows.length / (2 * Math.max(1, positives)) : rows.length / (2 * Math.max(1, negatives)));
    // Long texts are learnt window by window, as they are scored; each window counts a share.
    foldText(row.text, buffer);
    const starts = windowStarts(buffer.length);
    for (const start of starts) {
      extractFeatures(buffer, start, Math.min(buffer.length, start + WINDOW), vector);
      examples.push({
        indices: vector.indices.slice(0, vector.size),
        values: vector.values.slice(0, vector.size),
        label: row.label,
        weight: weight / starts.length,
      });
    }
  }
  return examples;
}

/** The highest-F1 threshold whose precision reaches the target (or the highest-F1 one if none does). */
export function chooseThreshold(scores: readonly number[], labels: readonly number[]): number {
  let best = { threshold: 0.5, f1: -1, reaches: false };
  for (let t = 5; t <= 99; t++) {
    const threshold = t / 100;
    const m = metrics(
      labels,
      scores.map((s) => s >= threshold),
    );
    const reaches = m.precision >= TARGET_PRECISION;
    if ((reaches && !best.reaches) || (reaches === best.reaches && m.f1 > best.f1)) best = { threshold, f1: m.f1, reaches };
  }
  return best.threshold;
}

/** A trained model ready to score, with what it needs to be written. */
export interface TrainedModel {
  scorer: InjectionScorer;
  write(threshold: number, training: Record<string, unknown>): Buffer;
}

/** Trains one architecture on rows. */
export function trainModel(rows: readonly Row[], recipe: TrainOptions): TrainedModel {
  const trained = train(examplesOf(rows, recipe.spec), recipe);
  return {
    scorer: new InjectionScorer(classifierOf(trained, recipe.spec)),
    write: (threshold, training) =>
      encodeWeights(
        {
          model: "prompt-injection",
          ...trained.header,
          features: recipe.spec,
          threshold,
          window: { size: 2048, stride: 1024 },
          training: { trainer: TRAINER_VERSION, seed: recipe.seed, epochs: recipe.epochs, ...training },
        },
        trained.tensors,
      ),
  };
}

/** Scores rows with a scorer as the check does (windows and decoded payloads). */
export function scoreRows(scorer: InjectionScorer, rows: readonly Row[]): number[] {
  return rows.map((row) => scorer.score(row.text, { decodePayloads: true, signals: 0 }).score);
}

/** What a weights file records about its training files. */
export type TrainingRecord = { files: FileRecord[]; split: string; rows: Record<string, number> };
