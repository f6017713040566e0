/**
 * Runs store work (sql/table.ts) on better-sqlite3, synchronously: a transaction's statements run
 * back to back in one `db.transaction`, so no other caller's statement lands between them. Nested
 * in `atomically`'s transaction, better-sqlite3 makes it a savepoint.
 */
import type Database from "better-sqlite3";
import type { ColumnKind, Dialect, Driver, Outcome, Row, Statement, Work } from "../sql/table.js";

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

  constructor(private readonly db: Database.Database) {}

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
    return this.#drive(work);
  }

  async atomic<T>(work: Work<T>): Promise<T> {
    return this.db.transaction(() => this.#drive(work))();
  }
}
