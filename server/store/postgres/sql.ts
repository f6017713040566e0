/**
 * The Postgres store's access to its pool: every statement runs prepared (named by its text, so
 * each pooled connection parses it once), timestamps come back as ISO 8601 strings like the rest of
 * the store's data, counts as numbers, and transactions hold one pooled connection.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import pg from "pg";

/** Something that runs a statement: the pool, or the connection of a transaction. */
export type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

const TIMESTAMPTZ = 1184;
const INT8 = 20;

/** Type parsers: `timestamptz` as an ISO string (millisecond precision, as written), `bigint` as a number. */
export const PG_TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMPTZ) {
      const parse = pg.types.getTypeParser(TIMESTAMPTZ, "text") as (value: string) => Date;
      return (value: string) => parse(value).toISOString();
    }
    // Counts and sums of row numbers stay far below 2^53.
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? "text");
  },
} as pg.CustomTypesConfig;

const names = new Map<string, string>();

/** The prepared statement's name for a text: the same on every connection. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `gg_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** A transaction that spans several repositories' calls (`atomically`): its pool and connection. */
interface Span {
  pool: pg.Pool;
  client: pg.PoolClient;
  /** False once committed or rolled back: work it started late (a timer) goes back to the pool. */
  open: boolean;
  savepoints: number;
}

const spans = new AsyncLocalStorage<Span>();

/** The open span of the calling work on this pool, if any. */
function spanOf(db: Queryable): Span | undefined {
  const span = spans.getStore();
  return span?.open && span.pool === db ? span : undefined;
}

/** Runs a prepared statement; resolves to its rows. */
export async function rows<T = Record<string, unknown>>(db: Queryable, text: string, values: unknown[] = []): Promise<T[]> {
  const result = await (spanOf(db)?.client ?? db).query({ name: statementName(text), text, values });
  return result.rows as T[];
}

/** Runs a prepared statement; resolves to the number of rows it touched. */
export async function run(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  const result = await (spanOf(db)?.client ?? db).query({ name: statementName(text), text, values });
  return result.rowCount ?? 0;
}

/**
 * Runs `work` as one transaction on one pooled connection: every statement it runs on this pool,
 * through any repository, is part of it; all are kept or none.
 */
export async function atomically<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const span: Span = { pool, client, open: true, savepoints: 0 };
  try {
    return await committed(client, () => spans.run(span, work));
  } finally {
    span.open = false;
    client.release();
  }
}

/** Runs `work` between BEGIN and COMMIT on a connection; rolls back when it throws. */
async function committed<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  try {
    await client.query("BEGIN");
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** Runs `work` in one transaction on one pooled connection; rolls back when it throws. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const span = spanOf(pool);
  // Inside `atomically`: a savepoint on its connection, so a failed step undoes itself only.
  if (span) {
    const name = `gg_step_${++span.savepoints}`;
    await span.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await work(span.client);
      await span.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await span.client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
      throw error;
    }
  }
  const client = await pool.connect();
  try {
    return await committed(client, () => work(client));
  } finally {
    client.release();
  }
}

/** How a field is stored: JSON fields as `jsonb`, the others as their own Postgres type. */
export type PgColumnKind = "plain" | "json";

/** The columns of one table with the SQL to write and read its records. */
export class PgTable<T extends object> {
  readonly columns: string[];
  readonly insertSql: string;

  constructor(
    readonly name: string,
    private readonly spec: { readonly [K in keyof T]?: PgColumnKind },
  ) {
    this.columns = Object.keys(spec);
    this.insertSql = `INSERT INTO ${name} (${this.columns.join(", ")}) VALUES (${this.columns.map((_, i) => `$${i + 1}`).join(", ")})`;
  }

  #encode(field: string, value: unknown): unknown {
    if (value === undefined || value === null) return null;
    return this.spec[field as keyof T] === "json" ? JSON.stringify(value) : value;
  }

  /** Parameters of `insertSql`, in column order. */
  values(record: T): unknown[] {
    return this.columns.map((column) => this.#encode(column, (record as Record<string, unknown>)[column]));
  }

  /** The record of a row (jsonb and booleans arrive decoded). */
  decode(row: Record<string, unknown>): T {
    const record: Record<string, unknown> = {};
    for (const column of this.columns) record[column] = row[column] ?? null;
    return record as T;
  }

  /** `SET a = $n, …` for the fields a patch gives, numbered from `first`, with their values. */
  setClause(patch: Record<string, unknown>, first: number): { sql: string; values: unknown[] } {
    const fields = Object.keys(patch).filter((field) => field in this.spec && patch[field] !== undefined);
    return {
      sql: fields.map((field, i) => `${field} = $${first + i}`).join(", "),
      values: fields.map((field) => this.#encode(field, patch[field])),
    };
  }
}
