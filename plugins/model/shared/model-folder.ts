/**
 * A Hugging Face text-classification model exported to ONNX, as a folder: `model.onnx`,
 * `tokenizer.json` (the fast-tokenizer file), `config.json` with `id2label`, and optionally
 * `tokenizer_config.json`. Reading it checks each file and says which one is wrong and how.
 */
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { GuardgateError } from "../../../core/index.js";
import type { ModelErrorCode } from "./error-codes.js";

/** A model folder that cannot be used: the message names the file and what was wrong. */
export class ModelLoadError extends GuardgateError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("model_invalid" satisfies ModelErrorCode, message, options);
  }
}

/** The parts of a model folder the classifier needs. */
export interface ModelFolder {
  dir: string;
  onnxPath: string;
  /** Labels by output index, from config.json's id2label. */
  labels: string[];
  /** Sigmoid per label (multi-label models) rather than softmax over labels. */
  multiLabel: boolean;
  /** Token id that pads a batch. */
  padId: number;
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
}

async function readJson(file: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ModelLoadError(`${file}: cannot be read: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ModelLoadError(`${file}: is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new ModelLoadError(`${file}: must hold a JSON object`);
  return value as Record<string, unknown>;
}

/** Labels in index order; id2label keys must be exactly 0…n-1. */
function labelsOf(config: Record<string, unknown>, file: string): string[] {
  const id2label = config.id2label;
  if (!id2label || typeof id2label !== "object" || Array.isArray(id2label)) {
    throw new ModelLoadError(`${file}: has no "id2label" object; a text-classification model names its labels there`);
  }
  const entries = Object.entries(id2label as Record<string, unknown>);
  if (entries.length === 0) throw new ModelLoadError(`${file}: "id2label" is empty`);
  const labels: string[] = [];
  for (const [key, label] of entries) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || index >= entries.length) {
      throw new ModelLoadError(`${file}: id2label key "${key}" is not an index from 0 to ${entries.length - 1}`);
    }
    if (typeof label !== "string" || !label) throw new ModelLoadError(`${file}: id2label["${key}"] is not a label name`);
    labels[index] = label;
  }
  return labels;
}

/** Reads and checks a model folder. */
export async function readModelFolder(dir: string): Promise<ModelFolder> {
  const onnxPath = path.join(dir, "model.onnx");
  try {
    await access(onnxPath);
  } catch (error) {
    throw new ModelLoadError(`${onnxPath}: not found; a model folder holds model.onnx, tokenizer.json and config.json`, {
      cause: error,
    });
  }
  const configFile = path.join(dir, "config.json");
  const config = (await readJson(configFile, true)) as Record<string, unknown>;
  const tokenizerFile = path.join(dir, "tokenizer.json");
  const tokenizerJson = (await readJson(tokenizerFile, true)) as Record<string, unknown>;
  if (!tokenizerJson.model || typeof tokenizerJson.model !== "object") {
    throw new ModelLoadError(`${tokenizerFile}: has no "model" section; is it a Hugging Face fast-tokenizer file?`);
  }
  const tokenizerConfig = (await readJson(path.join(dir, "tokenizer_config.json"), false)) ?? {};
  const pad = config.pad_token_id;
  return {
    dir,
    onnxPath,
    labels: labelsOf(config, configFile),
    multiLabel: config.problem_type === "multi_label_classification",
    padId: typeof pad === "number" && Number.isInteger(pad) && pad >= 0 ? pad : 0,
    tokenizerJson,
    tokenizerConfig,
  };
}
