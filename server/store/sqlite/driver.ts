/**
 * Runs store work (sql/table.ts) on better-sqlite3, synchronously: a transaction's statements run
 * back to back in one `db.transaction`, so no other caller's statement lands between them. Nested
 * in `atomically`'s transaction, better-sqlite3 makes it a savepoint.
 *
 * The write lock is never waited for on the event loop (lock-wait.ts): a transaction takes it at
 * its BEGIN (IMMEDIATE), which is tried again on a timer while another connection holds it; a
 * statement outside a transaction is tried again alone. Work is a generator that has not started
 * when its BEGIN fails, so trying the BEGIN again replays nothing.
 */
import type Database from "better-sqlite3";
import type { ColumnKind, Dialect, Driver, Outcome, Row, Statement, Work } from "../sql/table.js";
import { DEFAULT_LOCK_WAIT_MS, isBusy, storeBusy, tryOrWaitForLock, waitForLock } from "./lock-wait.js";

/** SQLite: `?` placeholders, booleans as 0/1, JSON as text; text sorts bytewise already. */
export const SQLITE_DIALECT: Dialect = {
  placeholder: () => "?",
  encode(kind: ColumnKind, value: unknown): unknown {
    if (value === undefined || value === null) return null;
    if (kind === "bool") return value ? 1 : 0;
    return kind === "json" ? JSON.stringify(value) : value;
  },
  decode(kind: ColumnKind, value: unknown): unknown {
    if (value === undefined || value === null) return kind === "bool" ? false : null;
    if (kind === "bool") return value === 1;
    return kind === "json" ? JSON.parse(value as string) : value;
  },
  sorted: (column) => column,
  oneOf: (q, column, values) => `${column} IN (${values.map((value) => q.param(value)).join(", ")})`,
  columnTypes: { text: "TEXT", int: "INTEGER", smallint: "INTEGER", real: "REAL", bool: "INTEGER", json: "TEXT" },
};

export class SqliteDriver implements Driver {
  readonly dialect = SQLITE_DIALECT;
  /** Prepared once per text: better-sqlite3 parses on `prepare`. */
  readonly #statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    /** How long a statement or a BEGIN waits for the write lock in all, ms. */
    private readonly lockWaitMs = DEFAULT_LOCK_WAIT_MS,
  ) {}

  #execute(statement: Statement): Outcome {
    let prepared = this.#statements.get(statement.text);
    if (!prepared) {
      prepared = this.db.prepare(statement.text);
      this.#statements.set(statement.text, prepared);
    }
    if (prepared.reader) {
      const rows = prepared.all(...statement.params) as Row[];
      return { rows, changes: rows.length };
    }
    return { rows: [], changes: prepared.run(...statement.params).changes };
  }

  #drive<T>(work: Work<T>): T {
    let step = work.next();
    while (!step.done) step = work.next(this.#execute(step.value));
    return step.value;
  }

  async run<T>(work: Work<T>): Promise<T> {
    let step = work.next();
    while (!step.done) {
      const statement = step.value;
      const outcome = tryOrWaitForLock(() => this.#execute(statement), this.lockWaitMs);
      step = work.next(outcome instanceof Promise ? await outcome : outcome);
    }
    return step.value;
  }

  async atomic<T>(work: Work<T>): Promise<T> {
    let started = false;
    // IMMEDIATE: the lock is taken at BEGIN, before any statement of the work runs.
    const transaction = this.db.transaction(() => {
      started = true;
      return this.#drive(work);
    }).immediate;
    return waitForLock(() => {
      try {
        return transaction();
      } catch (error) {
        // Locked after the work began (the lock was held, so only in a rare case such as WAL
        // recovery): its statements cannot be replayed, so it ends here as a 503.
        if (started && isBusy(error)) throw storeBusy(error);
        throw error;
      }
    }, this.lockWaitMs);
  }
}
