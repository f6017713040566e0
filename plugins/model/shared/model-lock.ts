/**
 * The lock file `guardgate models pull` writes into a model folder: the hub repository, the
 * commit its revision resolved to, and each file's size and SHA-256. A folder that holds one is
 * verified whenever it is loaded, so a file changed or swapped after the pull is refused rather
 * than run.
 *
 * The lock sits beside the files it vouches for, so whoever can rewrite a file can rewrite the
 * lock too. What the folder cannot change alone is the lock's own SHA-256 pinned in the gateway's
 * config file (`models.NAME.lock_sha256`, printed by the pull): a declared model with a pin loads
 * only when its lock hashes to the pin, and then only when every file matches the lock.
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

/** The SHA-256 of a lock file's bytes: what `models.NAME.lock_sha256` pins. */
export function lockSha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The folder's lock file's bytes, or undefined when it has none (a folder exported by hand). */
async function readLockBytes(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ModelLoadError(`${file}: cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

/** The lock these bytes hold; throws a ModelLoadError naming `file` when they hold none. */
function parseModelLock(file: string, bytes: Buffer): ModelLock {
  let lock: ModelLock;
  try {
    lock = JSON.parse(bytes.toString("utf8")) as ModelLock;
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

/** The folder's lock, or undefined when it has none (a folder exported by hand). */
export async function readModelLock(dir: string): Promise<ModelLock | undefined> {
  const file = path.join(dir, MODEL_LOCK_FILE);
  const bytes = await readLockBytes(file);
  return bytes && parseModelLock(file, bytes);
}

/**
 * The folder's lock, held to `pinned` (the lock's SHA-256 from the config) when one is given: a
 * missing lock, or one whose bytes hash otherwise, is refused. The bytes hashed are the bytes
 * parsed, so the lock cannot change between the two.
 */
async function pinnedModelLock(dir: string, pinned: string | undefined): Promise<ModelLock | undefined> {
  const file = path.join(dir, MODEL_LOCK_FILE);
  const bytes = await readLockBytes(file);
  if (pinned === undefined) return bytes && parseModelLock(file, bytes);
  if (!bytes) {
    throw new ModelLoadError(
      `${file}: missing, but the config pins the folder's lock (lock_sha256 ${pinned}); the folder is not the one pulled: pull it again`,
    );
  }
  const actual = lockSha256(bytes);
  if (actual !== pinned.toLowerCase()) {
    throw new ModelLoadError(
      `${file}: its SHA-256 ${actual} does not match lock_sha256 ${pinned} pinned in the config; the lock was rewritten after the pull: pull it again and pin the new lock`,
    );
  }
  return parseModelLock(file, bytes);
}

/**
 * Checks every file the folder's lock names against its recorded SHA-256, and the lock against
 * `pinned` (its SHA-256 from the config) when given; throws a ModelLoadError naming the first
 * file that is missing or differs. A folder without a lock, and without a pin, passes unchecked.
 */
export async function verifyModelLock(dir: string, pinned?: string): Promise<ModelLock | undefined> {
  const lock = await pinnedModelLock(dir, pinned);
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
