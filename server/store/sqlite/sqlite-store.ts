/**
 * The embedded store: one SQLite file in WAL mode (readers never wait for the writer), foreign keys
 * on, migrations run at open. Writes by another process (the CLI while the gateway runs) are noticed
 * and announced as an `external` change, so caches never serve a record another process replaced.
 *
 * Noticing takes two steps. `PRAGMA data_version` changes with any other connection's commit,
 * which includes the request log's writer thread, many times a second under load; so every write
 * of a record also bumps a records version in `meta`, and only a changed version is announced.
 * With data_version alone, every cache of the gateway was dropped once a second under load.
 * Records written with other tools than guardgate's (a hand-run `sqlite3`) bump no version: a
 * restart picks them up.
 *
 * This connection never waits for the write lock on the event loop: its busy timeout is 0 once the
 * store is open, and a statement or BEGIN that finds the lock taken is tried again on a timer
 * (lock-wait.ts), ending in `store_busy` (503) past `lockWaitMs`.
 */
import Database from "better-sqlite3";
import { LocalChangeFeed } from "../change-feed.js";
import { StoreError } from "../errors.js";
import type { ChangeEvent, MetaRepository, Store } from "../repository.js";
import { recordRepositories } from "../sql/repositories.js";
import { openConnection } from "./connection.js";
import { SqliteLogs } from "./logs.js";
import { migrate } from "./migrations.js";
import { SqliteDriver } from "./driver.js";
import { DEFAULT_LOCK_WAIT_MS, isBusy, tryOrWaitForLock } from "./lock-wait.js";

/** Options of `openSqliteStore`. */
export interface SqliteStoreOptions {
  /** The database file; `:memory:` for a throwaway store. */
  file: string;
  /** How often to look for writes by other processes, in ms; 0 turns it off. Default 1000. */
  externalChangePollMs?: number;
  /** How long a write waits in all for another connection's write lock, ms, before `store_busy`. Default 5000. */
  lockWaitMs?: number;
}

class SqliteMeta implements MetaRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly lockWaitMs: number,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row?.value;
  }

  async set(key: string, value: string): Promise<void> {
    const statement = this.db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    );
    await tryOrWaitForLock(() => statement.run(key, value), this.lockWaitMs);
  }
}

/** The `meta` key of the records version. */
const RECORDS_VERSION = "records_version";

/** A change feed that runs `onWrite` before announcing each of this process's own writes. */
class WriteCountingFeed extends LocalChangeFeed {
  constructor(private readonly onWrite: () => void) {
    super();
  }

  override emit(event: ChangeEvent): void {
    if (event.entity !== "external") this.onWrite();
    super.emit(event);
  }
}

/** Opens (creating when needed) and migrates a SQLite store. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  let db: Database.Database;
  try {
    db = openConnection(options.file);
    migrate(db);
    // Opening may wait for the lock (nothing is served yet); from now on waits happen on timers.
    db.pragma("busy_timeout = 0");
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError("store_open_failed", `cannot open the store at ${options.file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const readVersion = db.prepare("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?").pluck();
  const bumpVersion = db
    .prepare(
      `INSERT INTO meta (key, value) VALUES (?, '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING CAST(value AS INTEGER)`,
    )
    .pluck();
  let seenVersion = (readVersion.get(RECORDS_VERSION) as number | undefined) ?? 0;
  let missed = false;
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  const feed = new WriteCountingFeed(() => {
    let version: number;
    try {
      version = bumpVersion.get(RECORDS_VERSION) as number;
    } catch (error) {
      if (!isBusy(error)) throw error;
      // Another process took the lock since the write: the next poll announces an external change,
      // which drops every cache, this write's included.
      missed = true;
      return;
    }
    // Not one past the version last seen: another process wrote meanwhile.
    if (version !== seenVersion + 1) missed = true;
    seenVersion = version;
  });
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  let seen = dataVersion.get() as number;
  const pollMs = options.externalChangePollMs ?? 1000;
  function look(): void {
    const now = dataVersion.get() as number;
    if (now === seen && !missed) return;
    seen = now;
    const version = (readVersion.get(RECORDS_VERSION) as number | undefined) ?? 0;
    if (version === seenVersion && !missed) return;
    seenVersion = version;
    missed = false;
    feed.emit({ entity: "external" });
  }
  const poll =
    pollMs > 0
      ? setInterval(() => {
          try {
            look();
          } catch (error) {
            // A locked file is looked at again at the next tick; anything else is a bug.
            if (!isBusy(error)) throw error;
          }
        }, pollMs)
      : undefined;
  poll?.unref();
  const atomically = async <T>(work: () => Promise<T>): Promise<T> => {
    // The repositories' own transactions nest inside as savepoints (better-sqlite3 does so).
    // On the usual path the work starts in the same turn as its BEGIN, as it always did.
    const begun = tryOrWaitForLock(() => db.exec("BEGIN IMMEDIATE"), lockWaitMs);
    if (begun instanceof Promise) await begun;
    try {
      const result = await work();
      db.exec("COMMIT");
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  };
  let closed = false;
  return {
    kind: "sqlite",
    location: options.file,
    ...recordRepositories(new SqliteDriver(db, lockWaitMs), (event) => feed.emit(event)),
    logs: new SqliteLogs(db, lockWaitMs),
    meta: new SqliteMeta(db, lockWaitMs),
    changes: feed,
    atomically,
    // BEGIN IMMEDIATE takes the file's write lock: another process waits for it, then reads what was committed.
    exclusively: atomically,
    async close() {
      if (closed) return;
      closed = true;
      if (poll) clearInterval(poll);
      db.close();
    },
  };
}
