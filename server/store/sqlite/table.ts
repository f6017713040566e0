/**
 * One SQLite table of records, the shape every repository in records.ts shares: insert, select one
 * or many by equality on columns, patch, delete. Statements are prepared once per text and reused
 * (better-sqlite3 parses on `prepare`).
 */
import type Database from "better-sqlite3";
import type { RowCodec } from "./codec.js";

type Row = Record<string, unknown>;

/** Equality on columns: an undefined value is no condition, `null` is `IS NULL`. */
export type Where = Readonly<Record<string, string | number | null | undefined>>;

/** The records of one table. */
export class SqliteTable<T extends object> {
  readonly #statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    readonly name: string,
    private readonly codec: RowCodec<T>,
    /** The order of `many` unless told otherwise. */
    private readonly order = "created_at, id",
  ) {}

  /** A prepared statement for a text, made once. */
  statement(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Inserts a record; with `ignoreConflict`, a clash with an existing key inserts nothing. Says whether a row was added. */
  insert(record: T, options: { ignoreConflict?: boolean } = {}): boolean {
    const sql = `${this.codec.insertSql(this.name)}${options.ignoreConflict ? " ON CONFLICT DO NOTHING" : ""}`;
    return this.statement(sql).run(this.codec.encode(record)).changes > 0;
  }

  /** The first record matching. */
  one(where: Where): T | undefined {
    const { sql, params } = whereClause(where);
    const row = this.statement(`SELECT * FROM ${this.name}${sql}`).get(params) as Row | undefined;
    return row && this.codec.decode(row);
  }

  /** Every record matching, in `order`. */
  many(where: Where, order = this.order): T[] {
    const { sql, params } = whereClause(where);
    const found = this.statement(`SELECT * FROM ${this.name}${sql} ORDER BY ${order}`).all(params) as Row[];
    return found.map((row) => this.codec.decode(row));
  }

  /** Applies a patch (and `updated_at`) to the rows matching; says whether one changed. */
  update(where: Where, patch: Row, updatedAt: string): boolean {
    const set = this.codec.setClause({ ...patch, updated_at: updatedAt });
    const { sql, params } = whereClause(where, "w_");
    return this.statement(`UPDATE ${this.name} SET ${set.sql}${sql}`).run({ ...set.params, ...params }).changes > 0;
  }

  /** Deletes the rows matching; resolves to how many went. */
  delete(where: Where): number {
    const { sql, params } = whereClause(where);
    return this.statement(`DELETE FROM ${this.name}${sql}`).run(params).changes;
  }

  /** How many rows match. */
  count(where: Where = {}): number {
    const { sql, params } = whereClause(where);
    return (this.statement(`SELECT COUNT(*) AS n FROM ${this.name}${sql}`).get(params) as { n: number }).n;
  }
}

/** ` WHERE a = @a AND b IS NULL` and its named parameters (prefixed, so they cannot clash with SET's). */
function whereClause(where: Where, prefix = ""): { sql: string; params: Row } {
  const terms: string[] = [];
  const params: Row = {};
  for (const [column, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (value === null) terms.push(`${column} IS NULL`);
    else {
      terms.push(`${column} = @${prefix}${column}`);
      params[`${prefix}${column}`] = value;
    }
  }
  return { sql: terms.length ? ` WHERE ${terms.join(" AND ")}` : "", params };
}
