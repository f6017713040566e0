/**
 * Training the prompt-injection classifier: texts folded and turned into hashed n-gram vectors
 * exactly as at run time, then logistic regression or a one-hidden-layer MLP fitted by seeded
 * AdaGrad on a class- and source-weighted log loss. Deterministic: the same rows, options and
 * seed give the same weights, bit for bit.
 */
import { FoldBuffer, foldText } from "../../plugins/model/shared/fold.js";
import { extractFeatures, type FeatureSpec, FeatureVector } from "../../plugins/model/shared/hashed-features.js";
import {
  classifierFrom,
  type Classifier,
  type Sensitivity,
  type WindowSpec,
} from "../../plugins/model/shared/prompt-injection-model.js";
import type { TensorInput, WeightsHeader } from "../../plugins/model/shared/weights-file.js";
import { seededRandom, shuffle } from "./dataset.js";

/** A text as a sparse vector. */
export interface Example {
  indices: Int32Array;
  values: Float32Array;
  label: 0 | 1;
  weight: number;
}

/** Turns a text into its sparse feature vector, as the run-time scorer does for one window. */
export function vectorize(
  text: string,
  spec: FeatureSpec,
  buffer = new FoldBuffer(),
  vector = new FeatureVector(spec),
): Omit<Example, "label" | "weight"> {
  foldText(text, buffer);
  extractFeatures(buffer, 0, buffer.length, vector);
  return { indices: vector.indices.slice(0, vector.size), values: vector.values.slice(0, vector.size) };
}

/** How to train. */
export interface TrainOptions {
  architecture: "logistic" | "mlp";
  spec: FeatureSpec;
  epochs: number;
  learningRate: number;
  /** L2 penalty per update on the weights touched. */
  l2: number;
  /** MLP only: hidden units. */
  hidden?: number;
  seed: number;
}

/** Trained tensors and the header fields that describe the architecture. */
export interface Trained {
  tensors: TensorInput[];
  header: Record<string, unknown>;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-Math.max(-30, Math.min(30, z))));

/** Fits logistic regression with AdaGrad. */
function trainLogistic(examples: readonly Example[], options: TrainOptions): Trained {
  const size = 1 << options.spec.bits;
  const w = new Float32Array(size);
  const g2 = new Float32Array(size).fill(1e-8);
  let b = 0;
  let gb2 = 1e-8;
  const random = seededRandom(options.seed);
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    shuffle(order, random);
    for (const i of order) {
      const ex = examples[i] as Example;
      let z = b;
      for (let k = 0; k < ex.indices.length; k++) z += (w[ex.indices[k] as number] as number) * (ex.values[k] as number);
      const g = (sigmoid(z) - ex.label) * ex.weight;
      for (let k = 0; k < ex.indices.length; k++) {
        const j = ex.indices[k] as number;
        const grad = g * (ex.values[k] as number) + options.l2 * (w[j] as number);
        g2[j] = (g2[j] as number) + grad * grad;
        w[j] = (w[j] as number) - (options.learningRate * grad) / Math.sqrt(g2[j] as number);
      }
      gb2 += g * g;
      b -= (options.learningRate * g) / Math.sqrt(gb2);
    }
  }
  return {
    tensors: [
      { name: "w", values: w, dtype: "float32" },
      { name: "b", values: Float32Array.of(b), dtype: "float32" },
    ],
    header: { architecture: "logistic" },
  };
}

/** Fits a one-hidden-layer ReLU network with AdaGrad (sparse rows of the first layer). */
function trainMlp(examples: readonly Example[], options: TrainOptions): Trained {
  const hidden = options.hidden ?? 16;
  const size = 1 << options.spec.bits;
  const random = seededRandom(options.seed);
  const w1 = new Float32Array(size * hidden);
  const scale = 0.1;
  for (let i = 0; i < w1.length; i++) w1[i] = (random() * 2 - 1) * scale;
  const g1 = new Float32Array(size * hidden).fill(1e-8);
  const b1 = new Float32Array(hidden);
  const gb1 = new Float32Array(hidden).fill(1e-8);
  const w2 = new Float32Array(hidden);
  for (let j = 0; j < hidden; j++) w2[j] = (random() * 2 - 1) * 0.5;
  const gw2 = new Float32Array(hidden).fill(1e-8);
  let b2 = 0;
  let gb2 = 1e-8;
  const h = new Float32Array(hidden);
  const dh = new Float32Array(hidden);
  const lr = options.learningRate;
  const order = examples.map((_, i) => i);
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    shuffle(order, random);
    for (const i of order) {
      const ex = examples[i] as Example;
      h.set(b1);
      for (let k = 0; k < ex.indices.length; k++) {
        const row = (ex.indices[k] as number) * hidden;
        const x = ex.values[k] as number;
        for (let j = 0; j < hidden; j++) h[j] = (h[j] as number) + x * (w1[row + j] as number);
      }
      let z = b2;
      for (let j = 0; j < hidden; j++) if ((h[j] as number) > 0) z += (h[j] as number) * (w2[j] as number);
      const g = (sigmoid(z) - ex.label) * ex.weight;
      for (let j = 0; j < hidden; j++) {
        const active = (h[j] as number) > 0;
        dh[j] = active ? g * (w2[j] as number) : 0;
        const gw = active ? g * (h[j] as number) : 0;
        gw2[j] = (gw2[j] as number) + gw * gw;
        w2[j] = (w2[j] as number) - (lr * gw) / Math.sqrt(gw2[j] as number);
        const gb = dh[j] as number;
        gb1[j] = (gb1[j] as number) + gb * gb;
        b1[j] = (b1[j] as number) - (lr * gb) / Math.sqrt(gb1[j] as number);
      }
      gb2 += g * g;
      b2 -= (lr * g) / Math.sqrt(gb2);
      for (let k = 0; k < ex.indices.length; k++) {
        const row = (ex.indices[k] as number) * hidden;
        const x = ex.values[k] as number;
        for (let j = 0; j < hidden; j++) {
          const grad = (dh[j] as number) * x + options.l2 * (w1[row + j] as number);
          if (grad === 0) continue;
          g1[row + j] = (g1[row + j] as number) + grad * grad;
          w1[row + j] = (w1[row + j] as number) - (lr * grad) / Math.sqrt(g1[row + j] as number);
        }
      }
    }
  }
  return {
    tensors: [
      { name: "w1", values: w1, dtype: "int8" },
      { name: "b1", values: b1, dtype: "float32" },
      { name: "w2", values: w2, dtype: "float32" },
      { name: "b2", values: Float32Array.of(b2), dtype: "float32" },
    ],
    header: { architecture: "mlp", hidden },
  };
}

/** Trains the architecture the options name. */
export function train(examples: readonly Example[], options: TrainOptions): Trained {
  return options.architecture === "mlp" ? trainMlp(examples, options) : trainLogistic(examples, options);
}

/** A classifier straight from trained tensors (as it will be once written and read back). */
export function classifierOf(
  trained: Trained,
  spec: FeatureSpec,
  window: WindowSpec,
  calibration: { segmentGate: number | undefined; thresholds: Record<Sensitivity, number> } = {
    segmentGate: undefined,
    thresholds: { low: 0.5, balanced: 0.5, high: 0.5 },
  },
): Classifier {
  const tensors = new Map(trained.tensors.map((t) => [t.name, quantised(t)]));
  const header = {
    model: "prompt-injection",
    tensors: [],
    features: spec,
    window,
    threshold: calibration.thresholds.balanced,
    thresholds: calibration.thresholds,
    ...(calibration.segmentGate === undefined ? {} : { segmentGate: calibration.segmentGate }),
    ...trained.header,
  } as WeightsHeader;
  return classifierFrom({
    header,
    tensor: (name) => tensors.get(name) as Float32Array,
  });
}

/** The values a tensor reads back as after writing: int8 tensors lose precision. */
function quantised(tensor: TensorInput): Float32Array {
  if (tensor.dtype !== "int8") return tensor.values;
  let max = 0;
  for (const v of tensor.values) max = Math.max(max, Math.abs(v));
  const scale = max > 0 ? max / 127 : 1;
  return tensor.values.map((v) => Math.round(v / scale) * scale);
}
