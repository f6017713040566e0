/**
 * Runs a text-classification model from a folder (model-folder.ts) with onnxruntime-node on the
 * CPU: the text is tokenised once with the model's own tokenizer (@huggingface/tokenizers), cut
 * into overlapping windows of at most `maxTokens` tokens (each framed by the model's special
 * tokens), the windows run in small batches, and each label's score is its maximum over windows,
 * so a passage anywhere in a long text counts. A model is loaded once per thread and reused.
 */
import path from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { ModelLoadError, type ModelFolder, readModelFolder } from "./model-folder.js";
import { verifyModelLock } from "./model-lock.js";

/** A loaded model: its folder's facts, its session and its tokenizer. */
export interface LoadedClassifier {
  folder: ModelFolder;
  session: InferenceSession;
  tokenizer: Tokenizer;
  /** Special tokens the tokenizer puts before and after a text. */
  prefix: number[];
  suffix: number[];
  /** Whether the graph takes token_type_ids (BERT exports do). */
  tokenTypes: boolean;
  /** Name of the output holding the logits. */
  output: string;
  /** onnxruntime's tensor class (the runtime is imported on first load, not with the plugin). */
  Tensor: typeof Tensor;
}

/** What one classification found. */
export interface Classification {
  /** Each label's highest score over the windows, 0–1. */
  scores: Record<string, number>;
  /** Number of windows the text was cut into. */
  windows: number;
  /** Text tokens (special tokens not counted). */
  tokens: number;
  /** Index of the window that gave each label its score. */
  bestWindow: Record<string, number>;
}

/** Windows per inference call: batching amortises the call, a small batch bounds the memory. */
const BATCH = 8;
const FED_INPUTS = new Set(["input_ids", "attention_mask", "token_type_ids"]);

const loaded = new Map<string, Promise<LoadedClassifier>>();

/** Folders of the models this thread has loaded or is loading. */
export function loadedModels(): string[] {
  return [...loaded.keys()];
}

/**
 * The model in `dir`, loaded on first use in this thread; a failed load is retried next time.
 * `lockSha256`, the config's pin of the folder's lock file, is checked before anything is read.
 */
export function loadClassifier(dir: string, lockSha256?: string): Promise<LoadedClassifier> {
  const key = path.resolve(dir);
  let model = loaded.get(key);
  if (!model) {
    model = loadFresh(key, lockSha256);
    loaded.set(key, model);
    model.catch(() => loaded.delete(key));
  }
  return model;
}

async function loadFresh(dir: string, lockSha256: string | undefined): Promise<LoadedClassifier> {
  // A pulled folder is checked against its lock before any of its files is parsed or run.
  await verifyModelLock(dir, lockSha256);
  const folder = await readModelFolder(dir);
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(folder.tokenizerJson, folder.tokenizerConfig);
  } catch (error) {
    throw new ModelLoadError(`${path.join(dir, "tokenizer.json")}: the tokenizer cannot be built: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const { prefix, suffix } = framing(tokenizer, path.join(dir, "tokenizer.json"));
  const { InferenceSession, Tensor } = await import("onnxruntime-node");
  let session: InferenceSession;
  try {
    // One thread per session: the pool already runs one worker per core.
    session = await InferenceSession.create(folder.onnxPath, {
      executionProviders: ["cpu"],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
    });
  } catch (error) {
    throw new ModelLoadError(`${folder.onnxPath}: onnxruntime cannot load it: ${(error as Error).message}`, { cause: error });
  }
  const unknown = session.inputNames.find((name) => !FED_INPUTS.has(name));
  if (unknown !== undefined || !session.inputNames.includes("input_ids")) {
    await session.release();
    throw new ModelLoadError(
      `${folder.onnxPath}: takes inputs ${session.inputNames.join(", ")}; a text classifier takes input_ids, attention_mask and optionally token_type_ids`,
    );
  }
  const output = session.outputNames.includes("logits") ? "logits" : (session.outputNames[0] as string);
  return {
    folder,
    session,
    tokenizer,
    prefix,
    suffix,
    tokenTypes: session.inputNames.includes("token_type_ids"),
    output,
    Tensor,
  };
}

/** The special tokens around a text: what encoding adds before and after the bare tokens of a probe. */
function framing(tokenizer: Tokenizer, file: string): { prefix: number[]; suffix: number[] } {
  const probe = "hello world";
  const bare = tokenizer.encode(probe, { add_special_tokens: false }).ids;
  const framed = tokenizer.encode(probe).ids;
  for (let start = 0; start + bare.length <= framed.length; start++) {
    if (bare.every((id: number, i: number) => framed[start + i] === id)) {
      return { prefix: framed.slice(0, start), suffix: framed.slice(start + bare.length) };
    }
  }
  throw new ModelLoadError(`${file}: its post-processor changes the text's tokens, so windows cannot be framed`);
}

/** Token ids of a text without special tokens. */
export function tokenize(model: LoadedClassifier, text: string): number[] {
  return model.tokenizer.encode(text, { add_special_tokens: false }).ids;
}

/** Start offsets of windows of `size` tokens over `length` tokens, overlapping by a quarter. */
export function windowStarts(length: number, size: number): number[] {
  if (length <= size) return [0];
  const stride = Math.max(1, size - Math.floor(size / 4));
  const starts: number[] = [];
  for (let start = 0; ; start += stride) {
    if (start + size >= length) {
      starts.push(length - size);
      return starts;
    }
    starts.push(start);
  }
}

function softmax(logits: ArrayLike<number>): number[] {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i] as number);
  const exps = Array.from(logits, (x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((x) => x / sum);
}

const sigmoid = (logits: ArrayLike<number>) => Array.from(logits, (x) => 1 / (1 + Math.exp(-x)));

/** Classifies a text: each label's maximum score over windows of at most `maxTokens` tokens. */
export async function classify(
  model: LoadedClassifier,
  text: string,
  maxTokens: number,
  signal?: AbortSignal,
): Promise<Classification> {
  const { labels, multiLabel, padId, onnxPath } = model.folder;
  const ids = tokenize(model, text);
  const room = maxTokens - model.prefix.length - model.suffix.length;
  if (room < 1) throw new ModelLoadError(`maxTokens ${maxTokens} leaves no room for text between the model's special tokens`);
  const windows = windowStarts(ids.length, room).map((start) => [
    ...model.prefix,
    ...ids.slice(start, start + room),
    ...model.suffix,
  ]);
  const scores: Record<string, number> = Object.fromEntries(labels.map((l) => [l, 0]));
  const bestWindow: Record<string, number> = Object.fromEntries(labels.map((l) => [l, 0]));
  for (let first = 0; first < windows.length; first += BATCH) {
    signal?.throwIfAborted();
    const batch = windows.slice(first, first + BATCH);
    const width = Math.max(...batch.map((w) => w.length));
    const inputIds = new BigInt64Array(batch.length * width).fill(BigInt(padId));
    const mask = new BigInt64Array(batch.length * width);
    batch.forEach((window, row) => {
      window.forEach((id, col) => {
        inputIds[row * width + col] = BigInt(id);
        mask[row * width + col] = 1n;
      });
    });
    const dims = [batch.length, width];
    const { Tensor: T } = model;
    const feeds: Record<string, Tensor> = { input_ids: new T("int64", inputIds, dims) };
    if (model.session.inputNames.includes("attention_mask")) feeds.attention_mask = new T("int64", mask, dims);
    if (model.tokenTypes) feeds.token_type_ids = new T("int64", new BigInt64Array(batch.length * width), dims);
    const result = await model.session.run(feeds);
    const logits = result[model.output];
    if (!logits || logits.dims.length !== 2 || logits.dims[0] !== batch.length || logits.dims[1] !== labels.length) {
      throw new ModelLoadError(
        `${onnxPath}: output "${model.output}" has shape [${logits?.dims.join(", ") ?? ""}], not [batch, ${labels.length}] for the ${labels.length} labels of config.json`,
      );
    }
    const data = logits.data as Float32Array;
    for (let row = 0; row < batch.length; row++) {
      const rowLogits = data.subarray(row * labels.length, (row + 1) * labels.length);
      const probabilities = multiLabel ? sigmoid(rowLogits) : softmax(rowLogits);
      labels.forEach((label, i) => {
        const p = probabilities[i] as number;
        if (p > (scores[label] as number)) {
          scores[label] = p;
          bestWindow[label] = first + row;
        }
      });
    }
  }
  return { scores, windows: windows.length, tokens: ids.length, bestWindow };
}
