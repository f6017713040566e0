/**
 * The shipped prompt-injection classifier at run time: reads its weights file once, folds the
 * text, scores windows of it, its sentences and lines on their own (in a text longer than a
 * window) and the payloads decoded from base64 and hex inside it, and keeps the highest counted
 * score, so an injection buried in a long document is found at a cost linear in the length. Two
 * architectures share the features: logistic regression, and a one-hidden-layer MLP.
 */
import { FoldBuffer, foldPieceEnd, foldText } from "./fold.js";
import { extractFeatures, FeatureVector, type FeatureSpec } from "./hashed-features.js";
import { findPayloads } from "./payloads.js";
import { segments } from "./segments.js";
import { type WordSignal, wordSignals } from "./word-signals.js";
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

/** The file the package ships. */
export const PROMPT_INJECTION_WEIGHTS = new URL("../weights/prompt-injection.ggmw", import.meta.url);

/**
 * The sensitivity presets: how many attacks to catch against how many false alarms. `balanced`
 * is the default threshold; `low` flags only what the model is surest of; `high` catches more.
 */
export const SENSITIVITIES = ["low", "balanced", "high"] as const;
export type Sensitivity = (typeof SENSITIVITIES)[number];

/** A loaded classifier: its scoring function over a feature vector. */
export interface Classifier {
  spec: FeatureSpec;
  /** How texts longer than one window are cut (the model was trained on the same windows). */
  window: WindowSpec;
  /**
   * The score a sentence or line alone must reach to count (chosen on the validation split), or
   * undefined when the model scores windows only. Sentences of benign documents can score fairly
   * high alone ("do not share the password"), so a sentence decides only when the model is sure.
   */
  segmentGate: number | undefined;
  /** The default threshold chosen on the validation split (the balanced preset). */
  threshold: number;
  /** The threshold of each sensitivity preset, chosen on the validation split. */
  thresholds: Record<Sensitivity, number>;
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
  const segmentGate = typeof header.segmentGate === "number" ? header.segmentGate : undefined;
  const threshold = header.threshold as number;
  // Weights without presets get the one threshold for all three.
  const thresholds = (header.thresholds as Record<Sensitivity, number> | undefined) ?? {
    low: threshold,
    balanced: threshold,
    high: threshold,
  };
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
      segmentGate,
      threshold,
      thresholds,
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
    segmentGate,
    threshold,
    thresholds,
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

/** What kind of span decided a score. */
export type SpanKind = "text" | "window" | "sentence" | "payload";

/** The score of a text and where it came from. */
export interface InjectionScore {
  score: number;
  /** Offsets in the original text of the span (whole text, window, sentence or line, payload) that scored highest. */
  start: number;
  end: number;
  kind: SpanKind;
  /** Set when the highest score came from a decoded payload; `text` is then what it decoded to. */
  decoded?: { encoding: "base64" | "hex"; text: string };
  /** The words of the deciding span that pushed its score up most, when it was explained. */
  signals: WordSignal[];
  /** How many spans were scored. */
  spans: number;
  /** The best score of each kind of span, before the sentence gate (for choosing the gate). */
  best: { windows: number; sentences: number; payloads: number };
}

/** How to score. */
export interface ScoreOptions {
  decodePayloads: boolean;
  /** How many words to explain the score with. */
  signals: number;
  /** Explain only a score at or above this (explanations cost more than scores). */
  explainFrom?: number;
  /** The sentence gate, instead of the classifier's (calibration); `Infinity` scores no sentences. */
  segmentGate?: number;
}

/**
 * The work of one score as a sequence of steps: a step yields after each span, so a caller can
 * let the event loop run between them on a long text. Returns the score.
 */
type Steps = Generator<void, InjectionScore, void>;

/** A folded text's offsets of the original span from `start` to `end` (origins only grow). */
export function foldedRange(buffer: FoldBuffer, start: number, end: number): { from: number; to: number } {
  const lowerBound = (offset: number) => {
    let lo = 0;
    let hi = buffer.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((buffer.origin[mid] as number) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let from = lowerBound(start);
  let to = lowerBound(end);
  while (from < to && buffer.units[from] === 0x20) from++;
  while (to > from && buffer.units[to - 1] === 0x20) to--;
  return { from, to };
}

/** Characters folded per step. */
const FOLD_PIECE = 8192;

/** How long a call may run before it lets the event loop in, when scored with `scoreYielding`. */
const SLICE_MS = 8;

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

  /** Scores every window of a folded buffer, a step each; returns the best window and its score. */
  private *bestWindow(
    buffer: FoldBuffer,
    from = 0,
    to = buffer.length,
  ): Generator<void, { score: number; start: number; end: number; windows: number }, void> {
    const best = { score: -1, start: from, end: from, windows: 0 };
    const window = this.classifier.window;
    for (const offset of windowStarts(to - from, window)) {
      const start = from + offset;
      const end = Math.min(to, start + window.size);
      const score = this.scoreSpan(buffer, start, end);
      best.windows++;
      if (score > best.score) Object.assign(best, { score, start, end });
      yield;
    }
    return best;
  }

  /** Scores a text in one go: its windows, its sentences and lines, its decoded payloads; the highest counted score wins. */
  score(text: string, options: ScoreOptions): InjectionScore {
    const steps = this.steps(text, options);
    let step = steps.next();
    while (step.done !== true) step = steps.next();
    return step.value;
  }

  /**
   * Scores a text as `score` does, letting the event loop run every few milliseconds: a 100 KB
   * document is hundreds of spans, and a check scoring it inline would otherwise hold every
   * other request back for the whole of it.
   */
  async scoreYielding(text: string, options: ScoreOptions, sliceMs = SLICE_MS): Promise<InjectionScore> {
    const steps = this.steps(text, options);
    let sliceStart = performance.now();
    let step = steps.next();
    while (step.done !== true) {
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      step = steps.next();
    }
    return step.value;
  }

  /**
   * Folds the text into the scorer's buffer, a piece of about FOLD_PIECE characters per step
   * (folding 100 KB at once holds a busy thread for tens of milliseconds), cut between words so
   * that the result is the same as folding it whole.
   */
  private *fold(text: string): Generator<void, void, void> {
    this.folded.length = 0;
    for (let start = 0; start < text.length;) {
      const end = foldPieceEnd(text, start, FOLD_PIECE);
      foldText(text, this.folded, start, end, true);
      start = end;
      if (start < text.length) yield;
    }
  }

  private *steps(text: string, options: ScoreOptions): Steps {
    const explainFrom = options.explainFrom ?? 0;
    const gate = options.segmentGate ?? this.classifier.segmentGate ?? Infinity;
    yield* this.fold(text);
    const windows = yield* this.bestWindow(this.folded);
    const origin = (buffer: FoldBuffer, at: number) => (at >= buffer.length ? text.length : (buffer.origin[at] ?? 0));
    const result: InjectionScore = {
      score: windows.score,
      start: origin(this.folded, windows.start),
      end: windows.end >= this.folded.length ? text.length : origin(this.folded, windows.end),
      kind: windows.windows > 1 ? "window" : "text",
      signals: [],
      spans: windows.windows,
      best: { windows: windows.score, sentences: -1, payloads: -1 },
    };
    // Where the deciding span lies in a folded buffer, to explain it at the end.
    let explain = { buffer: this.folded, from: windows.start, to: windows.end };
    // Sentences and lines on their own (from the same folded text): an injected sentence among a
    // window's worth of ordinary text is otherwise diluted.
    // Only in a text longer than one window: in a shorter one the window is the whole text, and
    // its sentences alone would add false alarms without finding anything diluted.
    if (gate !== Infinity && windows.windows > 1) {
      for (const span of segments(text, this.classifier.window.size)) {
        const { from, to } = foldedRange(this.folded, span.start, span.end);
        if (to <= from) continue;
        const score = this.scoreSpan(this.folded, from, to);
        result.spans++;
        if (score > result.best.sentences) result.best.sentences = score;
        if (score >= gate && score > result.score) {
          Object.assign(result, { score, start: span.start, end: span.end, kind: "sentence" });
          explain = { buffer: this.folded, from, to };
        }
        yield;
      }
    }
    if (options.decodePayloads) {
      for (const payload of findPayloads(text)) {
        foldText(payload.text, this.payload);
        const inner = yield* this.bestWindow(this.payload);
        result.spans += inner.windows;
        if (inner.score > result.best.payloads) result.best.payloads = inner.score;
        if (inner.score > result.score) {
          Object.assign(result, {
            score: inner.score,
            start: payload.start,
            end: payload.end,
            kind: "payload",
            decoded: { encoding: payload.encoding, text: payload.text },
          });
          // The payload buffer is reused by the next payload: explain this one now.
          result.signals =
            inner.score >= explainFrom
              ? wordSignals(this.payload, inner.start, inner.end, this.vector, this.classifier, options.signals)
              : [];
          explain = { buffer: this.payload, from: -1, to: -1 };
        }
      }
    }
    if (explain.from >= 0 && result.score >= explainFrom)
      result.signals = wordSignals(explain.buffer, explain.from, explain.to, this.vector, this.classifier, options.signals);
    return result;
  }
}

let shipped: InjectionScorer | undefined;

/** The scorer of the shipped model, loaded on first use. */
export function promptInjectionScorer(): InjectionScorer {
  shipped ??= new InjectionScorer(classifierFrom(readWeights(PROMPT_INJECTION_WEIGHTS)));
  return shipped;
}
