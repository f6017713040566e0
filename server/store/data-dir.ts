/**
 * The data folder: `--data-dir`, else `GUARDGATE_DATA_DIR`, else `./.guardgate`. It holds the
 * database, the generated secret key and the initial keys, so it is created readable by its owner
 * only.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";

/** The default data folder, relative to the working directory. */
export const DEFAULT_DATA_DIR = ".guardgate";

/** The database file name inside the data folder. */
export const DATABASE_FILE = "guardgate.db";

/** The data folder to use, as an absolute path. */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(flag || env.GUARDGATE_DATA_DIR || DEFAULT_DATA_DIR);
}

/** Creates the data folder (mode 0700) when missing; returns its path. */
export function ensureDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
