/**
 * Runs store work (sql/table.ts) on a pg pool: each statement prepared (sql.ts), a transaction on
 * one pooled connection — or a savepoint inside `atomically`'s.
 */
import type pg from "pg";
import type { ColumnKind, Dialect, Driver, Work } from "../sql/table.js";
import { type Queryable, query, transaction } from "./sql.js";

/**
 * Postgres: `$n` placeholders, JSON sent as text into jsonb; booleans and jsonb arrive decoded.
 * Text sorts with `COLLATE "C"`, bytewise as in SQLite, whatever the database's collation.
 */
export const POSTGRES_DIALECT: Dialect = {
  placeholder: (n) => `$${n}`,
  encode(kind: ColumnKind, value: unknown): unknown {
    if (value === undefined || value === null) return null;
    return kind === "json" ? JSON.stringify(value) : value;
  },
  decode: (_kind, value) => value ?? null,
  sorted: (column, kind) => (kind === "text" ? `${column} COLLATE "C"` : column),
  // One array parameter: one prepared statement whatever the number of values.
  oneOf: (q, column, values) => `${column} = ANY(${q.param(values)}::text[])`,
  columnTypes: {
    text: "text",
    int: "integer",
    smallint: "smallint",
    real: "double precision",
    bool: "boolean",
    json: "jsonb",
  },
};

export class PgDriver implements Driver {
  readonly dialect = POSTGRES_DIALECT;

  constructor(private readonly pool: pg.Pool) {}

  async #drive<T>(db: Queryable, work: Work<T>): Promise<T> {
    let step = work.next();
    while (!step.done) step = work.next(await query(db, step.value.text, step.value.params));
    return step.value;
  }

  run<T>(work: Work<T>): Promise<T> {
    return this.#drive(this.pool, work);
  }

  atomic<T>(work: Work<T>): Promise<T> {
    return transaction(this.pool, (client) => this.#drive(client, work));
  }
}
