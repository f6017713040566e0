/**
 * The embedded store: one SQLite file in WAL mode (readers never wait for the writer), foreign keys
 * on, migrations run at open. Writes by another process (the CLI while the gateway runs) are noticed
 * through `PRAGMA data_version` and announced as an `external` change, so caches never serve a
 * record another process replaced.
 */
import Database from "better-sqlite3";
import { LocalChangeFeed } from "../change-feed.js";
import { StoreError } from "../errors.js";
import type { MetaRepository, Store } from "../repository.js";
import type { GuardrailRecord, StoredConfig } from "../types.js";
import { SqliteLogs } from "./logs.js";
import { migrate } from "./migrations.js";
import {
  SqliteApiKeys,
  SqliteIntegrations,
  SqliteOrganizations,
  SqlitePluginIntegrations,
  SqliteProviders,
  SqliteProvisioning,
  SqliteVersioned,
  SqliteWorkspaces,
} from "./records.js";

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** The database file; `:memory:` for a throwaway store. */
  file: string;
  /** How often to look for writes by other processes, in ms; 0 turns it off. Default 1000. */
  externalChangePollMs?: number;
}

class SqliteMeta implements MetaRepository {
  constructor(private readonly db: Database.Database) {}

  async get(key: string): Promise<string | undefined> {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    this.db
      .prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
      .run(key, value);
  }
}

/** Opens (creating when needed) and migrates a SQLite store. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  let db: Database.Database;
  try {
    db = new Database(options.file);
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    // NORMAL is durable across a process crash in WAL mode; only a power loss may drop the last commits.
    db.pragma("synchronous = NORMAL");
    migrate(db);
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError("store_open_failed", `cannot open the store at ${options.file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const feed = new LocalChangeFeed();
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  let seen = dataVersion.get() as number;
  const pollMs = options.externalChangePollMs ?? 1000;
  const poll =
    pollMs > 0
      ? setInterval(() => {
          const now = dataVersion.get() as number;
          if (now !== seen) {
            seen = now;
            feed.emit({ entity: "external" });
          }
        }, pollMs)
      : undefined;
  poll?.unref();
  let closed = false;
  return {
    kind: "sqlite",
    location: options.file,
    organizations: new SqliteOrganizations(db, feed),
    workspaces: new SqliteWorkspaces(db, feed),
    apiKeys: new SqliteApiKeys(db, feed),
    integrations: new SqliteIntegrations(db, feed),
    provisioning: new SqliteProvisioning(db, feed),
    pluginIntegrations: new SqlitePluginIntegrations(db, feed),
    providers: new SqliteProviders(db, feed),
    guardrails: new SqliteVersioned<GuardrailRecord>(db, feed, "guardrails"),
    configs: new SqliteVersioned<StoredConfig>(db, feed, "configs"),
    logs: new SqliteLogs(db),
    meta: new SqliteMeta(db),
    changes: feed,
    async close() {
      if (closed) return;
      closed = true;
      if (poll) clearInterval(poll);
      db.close();
    },
  };
}
