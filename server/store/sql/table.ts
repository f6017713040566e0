/**
 * One description of a table — its columns, each column's codec, its key and its default order —
 * and the statements both SQL dialects run over it. The statements are values (`Statement`) that
 * repository code yields from generator functions (`Work`); a driver runs them: synchronously on
 * better-sqlite3, asynchronously on a pg pool. So a repository is written once, and a SQLite
 * transaction stays synchronous (no other request's statement can slip into it between awaits).
 *
 * The dialects differ only where `Dialect` says: placeholders (`?` / `$1`), how booleans and JSON
 * travel, and how text sorts (Postgres is told `COLLATE "C"` so ids sort bytewise, as in SQLite).
 * Everything else — upserts (`ON CONFLICT … DO UPDATE`), `RETURNING`, `IS NULL` — is SQL both speak.
 *
 * Why not a query builder such as kysely: the statements here are a handful of shapes (insert,
 * select by equality, patch, delete, count), which this file makes in about 200 lines with the
 * drivers; kysely would still need the schema restated as TypeScript interfaces, the bool and JSON
 * codecs by hand, and its SQLite dialect runs a transaction as a chain of awaits on the one
 * connection, where here it is one synchronous call.
 */

/** How a column is stored and decoded (`smallint` and `real` decode as `int` does; they differ in the DDL). */
export type ColumnKind = "text" | "int" | "smallint" | "real" | "bool" | "json";

/** A column name, or one followed by ` DESC`. */
export type OrderTerm<T> = (keyof T & string) | `${keyof T & string} DESC`;

/** One table of records: the fields of `T` are its columns, named alike. */
export interface TableDescription<T> {
  readonly name: string;
  readonly columns: { readonly [K in keyof T]-?: ColumnKind };
  /** The order of `many` unless told otherwise. */
  readonly order: readonly OrderTerm<T>[];
}

/** A statement and its parameters, as the dialect numbers them. */
export interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** What running a statement gave: its rows (`SELECT`, `RETURNING`) and how many rows it touched. */
export interface Outcome {
  readonly rows: readonly Row[];
  readonly changes: number;
}

export type Row = Record<string, unknown>;

/** Store work: yields statements, receives their outcomes, returns its result. */
export type Work<T> = Generator<Statement, T, Outcome>;

/** What differs between SQLite and Postgres. */
export interface Dialect {
  /** The placeholder of the n-th parameter (from 1). */
  placeholder(n: number): string;
  /** The parameter value of a field. */
  encode(kind: ColumnKind, value: unknown): unknown;
  /** The field value of a column as the driver returned it. */
  decode(kind: ColumnKind, value: unknown): unknown;
  /** An ORDER BY term that sorts the column bytewise. */
  sorted(column: string, kind: ColumnKind): string;
  /** A condition that a text column holds one of `values`, its parameters added to `q`. */
  oneOf(q: Query, column: string, values: readonly string[]): string;
  /** The column type the migrations give each kind, as the database reports it (the store tests hold them to it). */
  readonly columnTypes: Readonly<Record<ColumnKind, string>>;
}

/** Runs store work: once, or as one transaction (all its statements kept, or none). */
export interface Driver {
  readonly dialect: Dialect;
  run<T>(work: Work<T>): Promise<T>;
  atomic<T>(work: Work<T>): Promise<T>;
}

/** Equality on columns: an undefined value is no condition, `null` is `IS NULL`. */
export type Where<T> = { readonly [K in keyof T]?: T[K] | null };

/** Builds a statement's text and parameter list together, so placeholders are numbered as they appear. */
export class Query {
  readonly params: unknown[] = [];

  constructor(private readonly dialect: Dialect) {}

  /** Adds a parameter; returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return this.dialect.placeholder(this.params.length);
  }

  /** The statement of a text built with `param`. */
  statement(text: string): Statement {
    return { text, params: this.params };
  }
}

/** The statements of one described table in one dialect. */
export class Table<T extends object> {
  readonly name: string;
  readonly #kinds: Readonly<Record<string, ColumnKind>>;
  readonly #columns: readonly string[];

  constructor(
    readonly description: TableDescription<T>,
    readonly dialect: Dialect,
  ) {
    this.name = description.name;
    this.#kinds = description.columns as Readonly<Record<string, ColumnKind>>;
    this.#columns = Object.keys(description.columns);
  }

  /** The record of a row. */
  decode(row: Row): T {
    const record: Row = {};
    for (const column of this.#columns) record[column] = this.dialect.decode(this.#kinds[column]!, row[column]);
    return record as T;
  }

  /** The parameter of one field. */
  encode(column: keyof T & string, value: unknown): unknown {
    return this.dialect.encode(this.#kinds[column]!, value);
  }

  /** Inserts a record; `ignore` makes a clash with an existing key insert nothing. Says whether a row was added. */
  *insert(record: T, onConflict: "fail" | "ignore" = "fail"): Work<boolean> {
    const q = new Query(this.dialect);
    const values = this.#columns.map((column) => q.param(this.encode(column as keyof T & string, (record as Row)[column])));
    const ignore = onConflict === "ignore" ? " ON CONFLICT DO NOTHING" : "";
    const text = `INSERT INTO ${this.name} (${this.#columns.join(", ")}) VALUES (${values.join(", ")})${ignore}`;
    return (yield q.statement(text)).changes > 0;
  }

  /** Inserts a record, or on a clash with `key` overwrites the `replace` columns; returns the stored record. */
  *upsert(record: T, key: readonly (keyof T & string)[], replace: readonly (keyof T & string)[]): Work<T> {
    const q = new Query(this.dialect);
    const values = this.#columns.map((column) => q.param(this.encode(column as keyof T & string, (record as Row)[column])));
    const set = replace.map((column) => `${column} = excluded.${column}`).join(", ");
    const text = `INSERT INTO ${this.name} (${this.#columns.join(", ")}) VALUES (${values.join(", ")})
      ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${set} RETURNING *`;
    const { rows } = yield q.statement(text);
    return this.decode(rows[0]!);
  }

  /** The first record matching. */
  *one(where: Where<T>): Work<T | undefined> {
    const q = new Query(this.dialect);
    const { rows } = yield q.statement(`SELECT * FROM ${this.name}${this.where(q, where)}`);
    return rows[0] && this.decode(rows[0]);
  }

  /** Every record matching, in `order`. */
  *many(where: Where<T>, order = this.description.order): Work<T[]> {
    const q = new Query(this.dialect);
    return yield* this.select(q, `${this.where(q, where)} ORDER BY ${this.orderBy(order)}`);
  }

  /** The records of `SELECT * FROM table <rest>`, `rest` built on `q`. */
  *select(q: Query, rest: string): Work<T[]> {
    const { rows } = yield q.statement(`SELECT * FROM ${this.name}${rest}`);
    return rows.map((row) => this.decode(row));
  }

  /**
   * Applies a patch (fields not in the table, or undefined, are left alone) to the rows matching,
   * adding 1 to the `bump` column if given; returns the first changed record.
   */
  *update(where: Where<T>, patch: Partial<T>, bump?: keyof T & string): Work<T | undefined> {
    const q = new Query(this.dialect);
    const set = Object.entries(patch)
      .filter(([column, value]) => column in this.#kinds && value !== undefined)
      .map(([column, value]) => `${column} = ${q.param(this.encode(column as keyof T & string, value))}`);
    if (bump) set.push(`${bump} = ${bump} + 1`);
    const { rows } = yield q.statement(`UPDATE ${this.name} SET ${set.join(", ")}${this.where(q, where)} RETURNING *`);
    return rows[0] && this.decode(rows[0]);
  }

  /** Deletes the rows matching; returns them. */
  *delete(where: Where<T>): Work<T[]> {
    const q = new Query(this.dialect);
    const { rows } = yield q.statement(`DELETE FROM ${this.name}${this.where(q, where)} RETURNING *`);
    return rows.map((row) => this.decode(row));
  }

  /** Deletes the rows matching without reading them back (for tables whose rows are large); returns how many went. */
  *discard(where: Where<T>): Work<number> {
    const q = new Query(this.dialect);
    return (yield q.statement(`DELETE FROM ${this.name}${this.where(q, where)}`)).changes;
  }

  /** How many rows match. */
  *count(where: Where<T> = {}): Work<number> {
    const q = new Query(this.dialect);
    const { rows } = yield q.statement(`SELECT COUNT(*) AS n FROM ${this.name}${this.where(q, where)}`);
    return Number(rows[0]!.n);
  }

  /** ` WHERE a = ? AND b IS NULL` for an equality filter, its parameters added to `q`. */
  where(q: Query, where: Where<T>, alias = ""): string {
    const terms: string[] = [];
    for (const [column, value] of Object.entries(where)) {
      if (value === undefined) continue;
      const name = `${alias}${column}`;
      terms.push(value === null ? `${name} IS NULL` : `${name} = ${q.param(this.encode(column as keyof T & string, value))}`);
    }
    return terms.length ? ` WHERE ${terms.join(" AND ")}` : "";
  }

  /** The ORDER BY list of terms, text sorted bytewise. */
  orderBy(order: readonly OrderTerm<T>[], alias = ""): string {
    return order
      .map((term) => {
        const [column, direction] = term.split(" ") as [string, string | undefined];
        const sorted = this.dialect.sorted(`${alias}${column}`, this.#kinds[column]!);
        return direction ? `${sorted} ${direction}` : sorted;
      })
      .join(", ");
  }
}
