/**
 * Waiting for the SQLite file's write lock without holding the event loop. better-sqlite3 is
 * synchronous: with a `busy_timeout`, a statement that finds the lock taken by another process (the
 * CLI, a `sqlite3` shell, the request log's writer thread) spins on the calling thread until the
 * lock is free or the timeout ends, so one write stalled every request of the gateway for up to
 * five seconds and then failed as a 500. The gateway's own connection has no busy timeout: a
 * statement that finds the lock taken fails at once, and is tried again after a pause on a timer,
 * the pauses growing, until the lock is free or the bound is spent. Past the bound the caller gets
 * StoreError `store_busy`, a 503 with retry-after.
 */
import { StoreError } from "../errors.js";

/** How long a statement waits for the lock in all, ms, unless the store is told otherwise. */
export const DEFAULT_LOCK_WAIT_MS = 5_000;

/** The first pause between two tries, ms; each pause doubles, up to LONGEST_PAUSE_MS. */
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 100;

/** Whether `error` is SQLite's "database is locked" (SQLITE_BUSY or one of its extended codes). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** The error a lock wait past its bound ends in: a 503 the client may retry. */
export function storeBusy(cause: unknown): StoreError {
  return new StoreError(
    "store_busy",
    "the store's SQLite file is locked by another connection (another process or the CLI is writing to it); try again shortly",
    { cause },
  );
}

/**
 * Runs `attempt`; while it fails with "database is locked", runs it again after a growing pause,
 * for at most `boundMs` in all, then throws `store_busy`. `attempt` must be safe to repeat: it
 * failed before changing anything (a statement, or the BEGIN of a transaction).
 */
export async function waitForLock<T>(attempt: () => T, boundMs: number = DEFAULT_LOCK_WAIT_MS): Promise<T> {
  const deadline = Date.now() + boundMs;
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const left = deadline - Date.now();
      if (left <= 0) throw storeBusy(error);
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}

/**
 * Runs `attempt` once on the spot, as the synchronous driver does; only when the lock is taken does
 * the caller wait (see `waitForLock`). So the usual path costs no timer and no extra await.
 */
export function tryOrWaitForLock<T>(attempt: () => T, boundMs: number = DEFAULT_LOCK_WAIT_MS): T | Promise<T> {
  try {
    return attempt();
  } catch (error) {
    if (!isBusy(error)) throw error;
    return waitForLock(attempt, boundMs);
  }
}
