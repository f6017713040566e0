/**
 * The lock file `guardgate models pull` writes into a model folder: the hub repository, the
 * commit its revision resolved to, and each file's size and SHA-256. A folder that holds one is
 * verified whenever it is loaded, so a file changed or swapped after the pull is refused rather
 * than run.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ModelLoadError } from "./model-folder.js";

/** The lock file's name inside a model folder. */
export const MODEL_LOCK_FILE = "guardgate-model.lock.json";

/** One pulled file. */
export interface LockedFile {
  /** Its path in the repository. */
  path: string;
  /** Its name in the folder. */
  file: string;
  size: number;
  sha256: string;
}

/** What a lock file holds. */
export interface ModelLock {
  version: 1;
  repo: string;
  /** The revision asked for (a branch, a tag or a commit). */
  revision: string;
  /** The commit it resolved to: the pin. */
  commit: string;
  /** The hub or mirror the files came from. */
  endpoint: string;
  files: LockedFile[];
}

/** The SHA-256 of a file, read as a stream (model files run to gigabytes). */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The folder's lock, or undefined when it has none (a folder exported by hand). */
export async function readModelLock(dir: string): Promise<ModelLock | undefined> {
  const file = path.join(dir, MODEL_LOCK_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ModelLoadError(`${file}: cannot be read: ${(error as Error).message}`, { cause: error });
  }
  let lock: ModelLock;
  try {
    lock = JSON.parse(text) as ModelLock;
  } catch (error) {
    throw new ModelLoadError(`${file}: is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  const valid =
    lock?.version === 1 &&
    Array.isArray(lock.files) &&
    lock.files.every(
      (f) =>
        typeof f?.file === "string" &&
        path.basename(f.file) === f.file &&
        typeof f.size === "number" &&
        typeof f.sha256 === "string" &&
        /^[0-9a-f]{64}$/.test(f.sha256),
    );
  if (!valid) throw new ModelLoadError(`${file}: is not a guardgate model lock (version 1 with files[].file, size, sha256)`);
  return lock;
}

/**
 * Checks every file the folder's lock names against its recorded SHA-256; throws a ModelLoadError
 * naming the first that is missing or differs. A folder without a lock passes unchecked.
 */
export async function verifyModelLock(dir: string): Promise<ModelLock | undefined> {
  const lock = await readModelLock(dir);
  if (!lock) return undefined;
  for (const entry of lock.files) {
    const file = path.join(dir, entry.file);
    let actual: string;
    try {
      actual = await fileSha256(file);
    } catch (error) {
      throw new ModelLoadError(`${file}: named in ${MODEL_LOCK_FILE} but cannot be read: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (actual !== entry.sha256) {
      throw new ModelLoadError(
        `${file}: its SHA-256 ${actual} does not match ${entry.sha256} recorded in ${MODEL_LOCK_FILE} (${lock.repo} at ${lock.commit}); the folder was changed after it was pulled: pull it again`,
      );
    }
  }
  return lock;
}
