/**
 * The prompt-injection model's training recipe: which rows, how they are weighted, the feature
 * spec and trainer options, how the default threshold is chosen, and the weights file it writes.
 */
import { FoldBuffer, foldText } from "../../plugins/model/shared/fold.js";
import { extractFeatures, FeatureVector } from "../../plugins/model/shared/hashed-features.js";
import {
  InjectionScorer,
  type Sensitivity,
  SENSITIVITIES,
  type WindowSpec,
  windowStarts,
} from "../../plugins/model/shared/prompt-injection-model.js";
import { segments } from "../../plugins/model/shared/segments.js";
import { encodeWeights } from "../../plugins/model/shared/weights-file.js";
import { type FileRecord, type Metrics, metrics, partOf, type Row } from "./dataset.js";
import { classifierOf, type Example, type Trained, type TrainOptions, train } from "./linear-trainer.js";
import { type TorchRecipe, trainTorch } from "./torch-trainer.js";

/** Bumped whenever the recipe or the trainer changes what a given input produces. */
export const TRAINER_VERSION = "prompt-injection-trainer/5";

/** Minimum precision the default threshold must reach on the validation split. */
export const TARGET_PRECISION = 0.97;

/** Minimum precision on the validation split of each sensitivity preset's threshold. */
export const PRESET_PRECISION: Record<Sensitivity, number> = { low: 0.99, balanced: TARGET_PRECISION, high: 0.9 };

/**
 * The sentence gates tried on the validation split: the score a sentence or line alone must
 * reach to count. Infinity scores windows only.
 */
const SEGMENT_GATES = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, Infinity];

/** A training recipe: the trainer's options and how rows are weighted. */
export interface Recipe extends TrainOptions {
  /**
   * "file": classes balanced over all rows, promptshield halved, written rows tripled.
   * "source": every source file gets the same total weight within each class, so no one file's
   * style decides what an attack or a benign text looks like.
   */
  weighting: "file" | "source";
  /** Under "file" weighting: how much a row written for this project counts against a dataset row. */
  writtenWeight: number;
  /** How long texts are cut, in training as at run time. */
  window: WindowSpec;
  /** Score sentences and lines on their own too, with a gate chosen on validation (see `segments.ts`). */
  segments: boolean;
  /**
   * How much the sentences and lines of a benign text longer than a window count, learnt on their
   * own as benign (as a share of the text's weight; 0 leaves them out). They are what the
   * sentence gate sees of ordinary documents; an attack's sentences are not all attacks, so only
   * benign texts give them.
   */
  benignSegments: number;
  /**
   * Set when the network is trained with PyTorch (`train_injection.py`) instead of the Node
   * trainer: its settings there. The trainer options above then name only the architecture and
   * the features; the epochs and learning rate are PyTorch's.
   */
  torch?: Partial<TorchRecipe>;
}

/** The recipes compared: the architectures, their features and trainer settings. */
export type RecipeName = "logistic" | "mlp" | "embedding";
export const RECIPE_NAMES: readonly RecipeName[] = ["logistic", "mlp", "embedding"];

/** The features and trainer settings of each architecture compared. */
export const RECIPES: Record<RecipeName, Recipe> = {
  logistic: {
    weighting: "file",
    writtenWeight: 3,
    window: { size: 768, stride: 384 },
    segments: true,
    benignSegments: 0,
    architecture: "logistic",
    spec: { bits: 18, maxCharGram: 5, wordBigrams: true },
    epochs: 6,
    learningRate: 0.2,
    l2: 1e-6,
    seed: 20261123,
  },
  mlp: {
    weighting: "file",
    writtenWeight: 3,
    window: { size: 768, stride: 384 },
    segments: true,
    benignSegments: 0,
    architecture: "mlp",
    spec: { bits: 17, maxCharGram: 5, wordBigrams: true },
    epochs: 6,
    learningRate: 0.05,
    l2: 1e-6,
    hidden: 16,
    seed: 20261123,
  },
  // The same network as "mlp" (summed bucket embeddings, ReLU, one output), trained with PyTorch:
  // Adam on mini-batches, the epoch kept by the validation part's log loss.
  embedding: {
    weighting: "file",
    writtenWeight: 3,
    window: { size: 768, stride: 384 },
    segments: true,
    benignSegments: 0,
    architecture: "mlp",
    spec: { bits: 18, maxCharGram: 5, wordBigrams: true },
    epochs: 4,
    learningRate: 0.003,
    l2: 0,
    hidden: 16,
    seed: 20261123,
    torch: { hidden: 16, epochs: 4, learningRate: 0.003, weighting: "file", writtenWeight: 3, seed: 20261123 },
  },
};

/** The recipe `npm run train:models` ships. */
export const SHIPPED_RECIPE: RecipeName = "logistic";

/** A recipe by name; throws naming the names there are. */
export function recipeNamed(name: string): Recipe {
  const found = RECIPE_NAMES.find((n) => n === name);
  if (found === undefined) throw new Error(`no recipe ${JSON.stringify(name)}: give one of ${RECIPE_NAMES.join(", ")}`);
  return RECIPES[found];
}

/**
 * How much a row counts: the augmented, template-filled source half; the rows written in other
 * languages three times, since they are few against thousands of English rows.
 */
function sourceWeight(row: Row, writtenWeight: number): number {
  if (row.file === "promptshield.jsonl") return 0.5;
  return row.source.startsWith("generated:guardgate/") ? writtenWeight : 1;
}

/** Each row's weight under a weighting; the weights average 1 over the rows. */
function rowWeights(rows: readonly Row[], { weighting, writtenWeight }: Pick<Recipe, "weighting" | "writtenWeight">): number[] {
  if (weighting === "file") {
    const positives = rows.filter((r) => r.label === 1).length;
    const negatives = rows.length - positives;
    return rows.map(
      (row) =>
        sourceWeight(row, writtenWeight) *
        (row.label === 1 ? rows.length / (2 * Math.max(1, positives)) : rows.length / (2 * Math.max(1, negatives))),
    );
  }
  // Per class, every file that has rows of the class shares the class's half equally.
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(`${row.label}:${row.file}`, (counts.get(`${row.label}:${row.file}`) ?? 0) + 1);
  const filesOf = (label: number) => [...counts.keys()].filter((k) => k.startsWith(`${label}:`)).length;
  const files = [filesOf(0), filesOf(1)];
  return rows.map((row) => rows.length / (2 * (files[row.label] as number) * (counts.get(`${row.label}:${row.file}`) as number)));
}

/** Rows as weighted training examples, each long text split into the windows it is scored in. */
export function examplesOf(
  rows: readonly Row[],
  recipe: Pick<Recipe, "spec" | "weighting" | "writtenWeight" | "window" | "benignSegments">,
): Example[] {
  const weights = rowWeights(rows, recipe);
  const buffer = new FoldBuffer();
  const vector = new FeatureVector(recipe.spec);
  const examples: Example[] = [];
  for (const [i, row] of rows.entries()) {
    const weight = weights[i] as number;
    // Long texts are learnt window by window, as they are scored; each window counts a share.
    foldText(row.text, buffer);
    const starts = windowStarts(buffer.length, recipe.window);
    for (const start of starts) {
      extractFeatures(buffer, start, Math.min(buffer.length, start + recipe.window.size), vector);
      examples.push({
        indices: vector.indices.slice(0, vector.size),
        values: vector.values.slice(0, vector.size),
        label: row.label,
        weight: weight / starts.length,
      });
    }
    if (row.label === 0 && recipe.benignSegments > 0 && starts.length > 1) {
      const spans = segments(row.text, recipe.window.size);
      for (const span of spans) {
        foldText(row.text, buffer, span.start, span.end);
        extractFeatures(buffer, 0, buffer.length, vector);
        examples.push({
          indices: vector.indices.slice(0, vector.size),
          values: vector.values.slice(0, vector.size),
          label: 0,
          weight: (weight * recipe.benignSegments) / spans.length,
        });
      }
    }
  }
  return examples;
}

/** The highest-F1 threshold whose precision reaches the target (or the highest-F1 one if none does). */
export function chooseThreshold(scores: readonly number[], labels: readonly number[], precision = TARGET_PRECISION): number {
  let best = { threshold: 0.5, f1: -1, reaches: false };
  for (let t = 5; t <= 99; t++) {
    const threshold = t / 100;
    const m = metrics(
      labels,
      scores.map((s) => s >= threshold),
    );
    const reaches = m.precision >= precision;
    if ((reaches && !best.reaches) || (reaches === best.reaches && m.f1 > best.f1)) best = { threshold, f1: m.f1, reaches };
  }
  return best.threshold;
}

/** What is chosen on the validation split after training: the sentence gate and the preset thresholds. */
export interface Calibration {
  /** Undefined: sentences do not count (windows only). */
  segmentGate: number | undefined;
  thresholds: Record<Sensitivity, number>;
  /** Validation metrics at the balanced threshold. */
  validation: Metrics;
}

/**
 * Chooses the sentence gate (the one giving the best validation F1 at the balanced threshold;
 * the lower gate on a tie) and each preset's threshold, on validation rows. Each row is scored
 * once, keeping the best window, sentence and payload apart, so every gate is tried for free.
 */
export function calibrate(scorer: InjectionScorer, rows: readonly Row[], segments: boolean): Calibration {
  const best = rows.map((row) => scorer.score(row.text, { decodePayloads: true, signals: 0, segmentGate: 0 }).best);
  const labels = rows.map((r) => r.label);
  const scoresAt = (gate: number) => best.map((b) => Math.max(b.windows, b.payloads, b.sentences >= gate ? b.sentences : -1));
  let chosen: { gate: number; f1: number; scores: number[] } | undefined;
  for (const gate of segments ? SEGMENT_GATES : [Infinity]) {
    const scores = scoresAt(gate);
    const threshold = chooseThreshold(scores, labels);
    const f1 = metrics(
      labels,
      scores.map((s) => s >= threshold),
    ).f1;
    // On a tie the lower gate wins: validation holds few long documents, where sentences matter.
    if (chosen === undefined || f1 > chosen.f1) chosen = { gate, f1, scores };
  }
  const { gate, scores } = chosen as { gate: number; scores: number[] };
  const thresholds = Object.fromEntries(
    SENSITIVITIES.map((preset) => [preset, chooseThreshold(scores, labels, PRESET_PRECISION[preset])]),
  ) as Record<Sensitivity, number>;
  return {
    segmentGate: gate === Infinity ? undefined : gate,
    thresholds,
    validation: metrics(
      labels,
      scores.map((s) => s >= thresholds.balanced),
    ),
  };
}

/** A trained model ready to score, with what it needs to be written. */
export interface TrainedModel {
  /** Scores windows and payloads only, until calibrated. */
  scorer: InjectionScorer;
  /** The scorer with a calibration applied, as the written weights will score. */
  calibrated(calibration: Calibration): InjectionScorer;
  write(calibration: Calibration, training: Record<string, unknown>): Buffer;
}

/** Trains one architecture on rows (the training part; the Node trainer). */
export function trainModel(rows: readonly Row[], recipe: Recipe): TrainedModel {
  return modelOf(train(examplesOf(rows, recipe), recipe), recipe);
}

/**
 * Trains a recipe on the training part of `rows`: with PyTorch when the recipe says so (which
 * also stops early by the rows' validation part), else with the Node trainer.
 */
export function fitRecipe(rows: readonly Row[], recipe: Recipe): TrainedModel {
  if (recipe.torch !== undefined) return modelOf(trainTorch(rows, recipe.spec, recipe.window, recipe.torch), recipe);
  return trainModel(
    rows.filter((r) => partOf(r.text) === "train"),
    recipe,
  );
}

/** A trained model's scorers and writer. */
function modelOf({ tensors, header: { torch, ...header } }: Trained, recipe: Recipe): TrainedModel {
  const trained = { tensors, header };
  return {
    scorer: new InjectionScorer(classifierOf(trained, recipe.spec, recipe.window)),
    calibrated: (calibration) => new InjectionScorer(classifierOf(trained, recipe.spec, recipe.window, calibration)),
    write: (calibration, training) =>
      encodeWeights(
        {
          model: "prompt-injection",
          ...trained.header,
          features: recipe.spec,
          threshold: calibration.thresholds.balanced,
          thresholds: calibration.thresholds,
          ...(calibration.segmentGate === undefined ? {} : { segmentGate: calibration.segmentGate }),
          window: recipe.window,
          training: {
            trainer: TRAINER_VERSION,
            // A PyTorch recipe records its own settings (with the epoch early stopping kept).
            ...(torch === undefined
              ? {
                  seed: recipe.seed,
                  epochs: recipe.epochs,
                  weighting: recipe.weighting,
                  writtenWeight: recipe.writtenWeight,
                  learningRate: recipe.learningRate,
                  l2: recipe.l2,
                }
              : { torch }),
            ...training,
          },
        },
        trained.tensors,
      ),
  };
}

/** Scores rows with a scorer as the check does (windows, sentences past the gate, decoded payloads). */
export function scoreRows(scorer: InjectionScorer, rows: readonly Row[]): number[] {
  return rows.map((row) => scorer.score(row.text, { decodePayloads: true, signals: 0 }).score);
}

/** What a weights file records about its training files. */
export type TrainingRecord = { files: FileRecord[]; split: string; rows: Record<string, number> };
