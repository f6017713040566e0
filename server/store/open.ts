/**
 * Opens the store the gateway and the CLI use: the data folder, the SQLite file in it, and the
 * secret key its credentials are sealed with.
 */
import path from "node:path";
import { DATABASE_FILE, ensureDataDir, resolveDataDir } from "./data-dir.js";
import type { Store } from "./repository.js";
import { bindSecretKey, loadSecretKey, type SecretBox, type SecretKeySource } from "./secret-box.js";
import { openSqliteStore } from "./sqlite/sqlite-store.js";

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /** `--data-dir`; else `GUARDGATE_DATA_DIR`, else `./.guardgate`. */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Told once when a secret key is generated, with its file (never the key). */
  onKeyGenerated?: (file: string) => void;
  /** See SqliteStoreOptions. */
  externalChangePollMs?: number;
}

/** An open store with its data folder and secret box. */
export interface OpenedStore {
  store: Store;
  box: SecretBox;
  dataDir: string;
  keySource: SecretKeySource;
}

/** Opens the data folder's store, creating folder, database and secret key as needed. */
export async function openStore(options: OpenStoreOptions = {}): Promise<OpenedStore> {
  const env = options.env ?? process.env;
  const dataDir = ensureDataDir(resolveDataDir(options.dataDir, env));
  const { box, source } = loadSecretKey(dataDir, env, options.onKeyGenerated);
  const store = openSqliteStore({
    file: path.join(dataDir, DATABASE_FILE),
    ...(options.externalChangePollMs !== undefined && { externalChangePollMs: options.externalChangePollMs }),
  });
  try {
    await bindSecretKey(store.meta, box);
  } catch (error) {
    await store.close();
    throw error;
  }
  return { store, box, dataDir, keySource: source };
}
