/**
 * A connection to the store's SQLite file with the settings every connection uses: the store's
 * own (sqlite-store.ts) and the request log's writer thread (log-writer-thread.ts).
 */
import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import Database from "better-sqlite3";
import { StoreError } from "../errors.js";

/**
 * Makes the database file, and its WAL and shared-memory files, readable by the gateway's user
 * only: it holds sealed credentials, key hashes and request logs. SQLite creates the WAL and SHM
 * files with the database file's mode, so creating that one 0600 covers all three; files from an
 * older start are narrowed too.
 */
function ownerOnly(file: string): void {
  if (file === ":memory:" || file.startsWith("file:")) return;
  try {
    closeSync(openSync(file, "a", 0o600));
  } catch {
    // A folder that does not exist (or cannot be written): SQLite's own error says so below.
    return;
  }
  for (const name of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(name)) chmodSync(name, 0o600);
}

/** Opens `file` in WAL mode (readers never wait for the writer), foreign keys on. */
export function openConnection(file: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    ownerOnly(file);
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
