/**
 * The model folders a gateway config file declares by name (`models:`), resolved and checked once
 * at start: a folder without model.onnx, a file that differs from the folder's lock, or a lock
 * that differs from its pin (`lock_sha256`) stops the start, naming the config key, rather than
 * failing every request later.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../../../core/index.js";
import { verifyModelLock } from "./model-lock.js";

/** One declared folder, as the config file writes it. */
export interface DeclaredModel {
  path: string;
  lock_sha256?: string;
}

/** What checks are given of the declared folders (CheckSettings `models` and `modelLocks`). */
export interface DeclaredModels {
  /** Absolute folder by name. */
  models: Record<string, string>;
  /** The pinned SHA-256 of the lock file by absolute folder, where the config pins one. */
  modelLocks?: Record<string, string>;
}

/** Resolves the declared folders (relative paths from `baseDir`) and verifies each; undefined when none are declared. */
export async function resolveDeclaredModels(
  declared: Record<string, DeclaredModel> | undefined,
  baseDir: string,
): Promise<DeclaredModels | undefined> {
  if (!declared) return undefined;
  const models: Record<string, string> = {};
  const modelLocks: Record<string, string> = {};
  for (const [name, entry] of Object.entries(declared)) {
    const folder = path.resolve(baseDir, entry.path);
    if (!existsSync(path.join(folder, "model.onnx"))) {
      throw new ConfigError(
        `models.${name}.path`,
        `${folder} holds no model.onnx (a model folder holds model.onnx, tokenizer.json and config.json)`,
      );
    }
    try {
      await verifyModelLock(folder, entry.lock_sha256);
    } catch (error) {
      throw new ConfigError(
        `models.${name}.${entry.lock_sha256 === undefined ? "path" : "lock_sha256"}`,
        (error as Error).message,
      );
    }
    models[name] = folder;
    if (entry.lock_sha256 !== undefined) modelLocks[folder] = entry.lock_sha256;
  }
  return { models, ...(Object.keys(modelLocks).length > 0 && { modelLocks }) };
}
