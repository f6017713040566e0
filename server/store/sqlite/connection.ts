/**
 * A connection to the store's SQLite file with the settings every connection uses: the store's
 * own (sqlite-store.ts) and the request log's writer thread (log-writer-thread.ts).
 */
import Database from "better-sqlite3";
import { StoreError } from "../errors.js";

/** Opens `file` in WAL mode (readers never wait for the writer), foreign keys on. */
export function openConnection(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    // NORMAL is durable across a process crash in WAL mode; only a power loss may drop the last commits.
    db.pragma("synchronous = NORMAL");
    return db;
  } catch (error) {
    db?.close();
    throw new StoreError("store_open_failed", `cannot open the store at ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
