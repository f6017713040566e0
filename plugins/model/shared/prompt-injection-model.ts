/**
 * The shipped prompt-injection classifier at run time: reads its weights file once, folds the
 * text, scores windows of it (and the payloads decoded from base64 and hex inside it) and keeps
 * the highest score, so an injection buried in a long document is found at a cost linear in the
 * length. Two architectures share the features: logistic regression, and a one-hidden-layer MLP.
 */
import { FoldBuffer, foldText } from "./fold.js";
import { extractFeatures, FeatureVector, type FeatureSpec, visitFeatures } from "./hashed-features.js";
import { findPayloads } from "./payloads.js";
import { readWeights, type Weights } from "./weights-file.js";

/** How long texts are cut: folded code units per window, and the step from one window to the next. */
export interface WindowSpec {
  size: number;
  stride: number;
}

/** The windows of models whose weights file names none. */
export const DEFAULT_WINDOW: WindowSpec = { size: 768, stride: 384 };

/** Where the windows of a folded text of `length` units start: every stride, the last one flush with the end. */
export function windowStarts(length: number, window: WindowSpec = DEFAULT_WINDOW): number[] {
  if (length <= window.size) return [0];
  const starts: number[] = [];
  for (let start = 0; start + window.size < length; start += window.stride) starts.push(start);
  starts.push(length - window.size);
  return starts;
}

/** A line of a text with something on it. */
const LINE = /[^\n]*\S[^\n]*/g;
/**
 * Windows from which a text's lines are scored on their own: a long document (about 4 KB and
 * more), where one injected line is most diluted; shorter texts are read by their windows only.
 */
const LINES_FROM = 10;
/**
 * The score a line alone must reach to count: only a line the model is all but sure of. Benign
 * long texts hold lines that score fairly high alone ("do not share the password"); counting
 * those cost 0.01–0.02 of validation F1, counting only lines at 0.98 and above cost nothing.
 */
const LINE_MIN = 0.98;
/** Lines shorter than this are not scored on their own (a heading, a table cell). */
const MIN_LINE = 20;

/** The lines of a text worth scoring on their own: at least MIN_LINE and at most one window long. */
export function lines(text: string, window: number): Array<{ start: number; end: number }> {
  const found: Array<{ start: number; end: number }> = [];
  for (const line of text.matchAll(LINE)) {
    if (line[0].length >= MIN_LINE && line[0].length <= window)
      found.push({ start: line.index, end: line.index + line[0].length });
  }
  return found;
}

/** The file the package ships. */
export const PROMPT_INJECTION_WEIGHTS = new URL("../weights/prompt-injection.ggmw", import.meta.url);

/** A loaded classifier: its scoring function over a feature vector. */
export interface Classifier {
  spec: FeatureSpec;
  /** How texts longer than one window are cut (the model was trained on the same windows). */
  window: WindowSpec;
  /** Whether the lines of a text longer than a window are scored on their own too. */
  lines: boolean;
  /** The default threshold chosen on the validation split. */
  threshold: number;
  header: Weights["header"];
  /** Probability of injection for the vector. */
  score(vector: FeatureVector): number;
  /** Each feature's share of the logit, for explanations: written into `out` by bucket. */
  contributions(vector: FeatureVector, out: Map<number, number>): void;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Builds the classifier a weights file describes. */
export function classifierFrom(weights: Weights): Classifier {
  const header = weights.header;
  const spec = header.features as FeatureSpec;
  const window = (header.window as WindowSpec | undefined) ?? DEFAULT_WINDOW;
  const lines = header.lines === true;
  const threshold = header.threshold as number;
  if (header.architecture === "mlp") {
    const hidden = header.hidden as number;
    const w1 = weights.tensor("w1");
    const b1 = weights.tensor("b1");
    const w2 = weights.tensor("w2");
    const b2 = (weights.tensor("b2")[0] as number) ?? 0;
    const h = new Float32Array(hidden);
    const forward = (vector: FeatureVector) => {
      h.set(b1);
      for (let k = 0; k < vector.size; k++) {
        const row = (vector.indices[k] as number) * hidden;
        const x = vector.values[k] as number;
        for (let j = 0; j < hidden; j++) h[j] = (h[j] as number) + x * (w1[row + j] as number);
      }
      let z = b2;
      for (let j = 0; j < hidden; j++) if ((h[j] as number) > 0) z += (h[j] as number) * (w2[j] as number);
      return z;
    };
    return {
      spec,
      window,
      lines,
      threshold,
      header,
      score: (vector) => sigmoid(forward(vector)),
      contributions(vector, out) {
        forward(vector);
        for (let k = 0; k < vector.size; k++) {
          const row = (vector.indices[k] as number) * hidden;
          let c = 0;
          for (let j = 0; j < hidden; j++) if ((h[j] as number) > 0) c += (w1[row + j] as number) * (w2[j] as number);
          out.set(vector.indices[k] as number, c * (vector.values[k] as number));
        }
      },
    };
  }
  const w = weights.tensor("w");
  const bias = weights.tensor("b")[0] ?? 0;
  const logit = (vector: FeatureVector) => {
    let z = bias;
    for (let k = 0; k < vector.size; k++) z += (w[vector.indices[k] as number] as number) * (vector.values[k] as number);
    return z;
  };
  return {
    spec,
    window,
    lines,
    threshold,
    header,
    score: (vector) => sigmoid(logit(vector)),
    contributions(vector, out) {
      for (let k = 0; k < vector.size; k++) {
        const bucket = vector.indices[k] as number;
        out.set(bucket, (w[bucket] as number) * (vector.values[k] as number));
      }
    },
  };
}

/** A piece of text that pushed the score up. */
export interface Signal {
  text: string;
  weight: number;
}

/** The score of a text and where it came from. */
export interface InjectionScore {
  score: number;
  /** Offsets in the original text of the window (or payload) that scored highest. */
  start: number;
  end: number;
  /** Set when the highest score came from a decoded payload. */
  decoded?: "base64" | "hex";
  signals: Signal[];
  windows: number;
}

/** Scores texts with one classifier; holds the reused buffers (one scorer per thread). */
export class InjectionScorer {
  private readonly folded = new FoldBuffer();
  private readonly payload = new FoldBuffer();
  private readonly vector: FeatureVector;

  constructor(readonly classifier: Classifier) {
    this.vector = new FeatureVector(classifier.spec);
  }

  /** The probability of injection of one folded span. */
  private scoreSpan(buffer: FoldBuffer, start: number, end: number): number {
    extractFeatures(buffer, start, end, this.vector);
    return this.classifier.score(this.vector);
  }

  /** Scores every window of a folded buffer; returns the best window and its score. */
  private bestWindow(buffer: FoldBuffer): { score: number; start: number; end: number; windows: number } {
    let best = { score: -1, start: 0, end: 0, windows: 0 };
    const window = this.classifier.window;
    for (const start of windowStarts(buffer.length, window)) {
      const end = Math.min(buffer.length, start + window.size);
      const score = this.scoreSpan(buffer, start, end);
      best.windows++;
      if (score > best.score) best = { ...best, score, start, end };
    }
    return best;
  }

  /**
   * Scores a text: its windows and its decoded payloads; the highest score wins. The signals are
   * worked out only when the score reaches `explainFrom` (they cost more than the score).
   */
  score(text: string, options: { decodePayloads: boolean; signals: number; explainFrom?: number }): InjectionScore {
    foldText(text, this.folded);
    const best = this.bestWindow(this.folded);
    const result: InjectionScore = {
      score: best.score,
      start: this.folded.origin[best.start] ?? 0,
      end: best.end >= this.folded.length ? text.length : (this.folded.origin[best.end] ?? text.length),
      signals: [],
      windows: best.windows,
    };
    let payloadWon = false;
    // In a text longer than a window, each line is scored on its own as well (models trained so):
    // an injected line among a window's worth of ordinary text is otherwise diluted.
    if (this.classifier.lines && best.windows >= LINES_FROM) {
      for (const line of lines(text, this.classifier.window.size)) {
        foldText(text, this.payload, line.start, line.end);
        const inner = this.bestWindow(this.payload);
        result.windows += inner.windows;
        if (inner.score >= LINE_MIN && inner.score > result.score) {
          Object.assign(result, { score: inner.score, start: line.start, end: line.end });
          if (inner.score >= (options.explainFrom ?? 0))
            result.signals = this.signals(this.payload, inner.start, inner.end, options.signals);
          payloadWon = true;
        }
      }
    }
    if (options.decodePayloads) {
      for (const payload of findPayloads(text)) {
        foldText(payload.text, this.payload);
        const inner = this.bestWindow(this.payload);
        result.windows += inner.windows;
        if (inner.score > result.score) {
          Object.assign(result, { score: inner.score, start: payload.start, end: payload.end, decoded: payload.encoding });
          // The payload buffer is reused by the next payload: explain this one now.
          if (inner.score >= (options.explainFrom ?? 0))
            result.signals = this.signals(this.payload, inner.start, inner.end, options.signals);
          payloadWon = true;
        }
      }
    }
    if (!payloadWon && result.score >= (options.explainFrom ?? 0))
      result.signals = this.signals(this.folded, best.start, best.end, options.signals);
    return result;
  }

  /** The n-grams of a span that pushed its score up most, strongest first, without overlaps. */
  private signals(buffer: FoldBuffer, start: number, end: number, count: number): Signal[] {
    if (count === 0) return [];
    extractFeatures(buffer, start, end, this.vector);
    const contributions = new Map<number, number>();
    this.classifier.contributions(this.vector, contributions);
    const spans: Array<{ from: number; to: number; weight: number }> = [];
    const seen = new Set<number>();
    visitFeatures(buffer, start, end, this.vector, (bucket, from, to) => {
      if (seen.has(bucket)) return;
      seen.add(bucket);
      const weight = contributions.get(bucket) ?? 0;
      if (weight > 0) spans.push({ from, to, weight });
    });
    spans.sort((a, b) => b.weight - a.weight || a.from - b.from);
    const picked: Signal[] = [];
    const texts = new Set<string>();
    for (const span of spans) {
      if (picked.length >= count) break;
      const text = buffer.slice(span.from, span.to).trim();
      if (text.length < 2 || [...texts].some((t) => t.includes(text) || text.includes(t))) continue;
      texts.add(text);
      picked.push({ text, weight: Number(span.weight.toFixed(4)) });
    }
    return picked;
  }
}

let shipped: InjectionScorer | undefined;

/** The scorer of the shipped model, loaded on first use. */
export function promptInjectionScorer(): InjectionScorer {
  shipped ??= new InjectionScorer(classifierFrom(readWeights(PROMPT_INJECTION_WEIGHTS)));
  return shipped;
}
