/**
 * The request log's writer thread: its own connection to the store's SQLite file, writing the
 * batches the gateway's log writer hands over (see server/logs/threaded-writer.ts), so their
 * transactions never hold the event loop. Compiled to dist/server/store/sqlite/log-writer-thread.js.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { NewLogEntry } from "../log-types.js";
import { openConnection } from "./connection.js";
import { SqliteLogs } from "./logs.js";

/** What the thread is started with. */
export interface LogThreadData {
  file: string;
  /** How long a batch waits for another connection's write lock, ms; lock-wait.ts's default when absent. */
  lockWaitMs?: number;
}

/** A batch to write; the answer carries the same id. */
export interface WriteMessage {
  id: number;
  batch: NewLogEntry[];
}

/** The answer to a WriteMessage: written, or the error that stopped it. */
export interface WrittenMessage {
  id: number;
  error?: { message: string; code?: string };
}

const port = parentPort;
if (port) {
  const { file, lockWaitMs } = workerData as LogThreadData;
  // The schema is the gateway's own connection's to migrate (sqlite-store.ts).
  const db = openConnection(file);
  // Waits for another process's lock on timers (lock-wait.ts), so a "close" is heard meanwhile; a
  // batch still locked out at the bound fails, and the batch writer tries it again.
  db.pragma("busy_timeout = 0");
  const logs = new SqliteLogs(db, lockWaitMs);
  port.on("message", (message: WriteMessage | "close") => {
    if (message === "close") {
      db.close();
      port.close();
      return;
    }
    logs.insert(message.batch).then(
      () => port.postMessage({ id: message.id } satisfies WrittenMessage),
      (error: unknown) => {
        const { message: text, code } = error as { message?: unknown; code?: unknown };
        port.postMessage({
          id: message.id,
          error: { message: String(text ?? error), ...(typeof code === "string" && { code }) },
        } satisfies WrittenMessage);
      },
    );
  });
}
