/**
 * Opens the store the gateway and the CLI use: the data folder with the secret key credentials are
 * sealed with, and the SQLite file in it, or a Postgres database shared by a fleet of instances
 * when a `postgres://` URL is given.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { DATABASE_FILE, ensureDataDir, resolveDataDir } from "./data-dir.js";
import { StoreError } from "./errors.js";
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
  /** A `postgres://` URL (`--store`); else `GUARDGATE_STORE_URL`, else the data folder's SQLite file. */
  url?: string;
  /** Connections in the Postgres pool. */
  poolSize?: number;
  /** Days Postgres keeps request logs. */
  logRetentionDays?: number;
  /**
   * Whether a missing data folder, database and secret key are created (default true). The CLI's
   * commands pass false: a command run in the wrong folder must say so, not start an empty store.
   */
  create?: boolean;
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
  const url = options.url ?? (env.GUARDGATE_STORE_URL || undefined);
  const wanted = resolveDataDir(options.dataDir, env);
  if (options.create === false && !url && !existsSync(path.join(wanted, DATABASE_FILE))) {
    throw new StoreError(
      "store_missing",
      `no store in ${wanted} (no ${DATABASE_FILE} there): run the command where \`guardgate serve\` keeps its data, or name the folder with --data-dir or GUARDGATE_DATA_DIR`,
    );
  }
  const dataDir = ensureDataDir(wanted);
  const { box, source } = loadSecretKey(dataDir, env, options.onKeyGenerated);
  const poll = options.externalChangePollMs !== undefined && { externalChangePollMs: options.externalChangePollMs };
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
    throw new StoreError("store_url_invalid", `the store URL must start with postgres:// (SQLite is the data folder's file)`);
  }
  // Loaded only when asked for: the CLI's commands on a SQLite store start without it.
  const store = url
    ? await (
        await import("./postgres/pg-store.js")
      ).openPostgresStore({
        url,
        ...poll,
        ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
        ...(options.logRetentionDays !== undefined && { logRetentionDays: options.logRetentionDays }),
      })
    : openSqliteStore({ file: path.join(dataDir, DATABASE_FILE), ...poll });
  try {
    await bindSecretKey(store.meta, box);
  } catch (error) {
    await store.close();
    throw error;
  }
  return { store, box, dataDir, keySource: source };
}
