/**
 * The Postgres store's access to its pool: every statement runs prepared (named by its text, so
 * each pooled connection parses it once), timestamps come back as ISO 8601 strings like the rest of
 * the store's data, counts as numbers, and transactions hold one pooled connection.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import pg from "pg";
import { StoreError } from "../errors.js";

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

/** Node's codes for a server that cannot be reached, or a connection that broke. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/** pg's messages for a connection that ended or never came (they carry no code). */
const CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/**
 * Whether an error says the server cannot be reached, rather than that a statement failed: a
 * network code, SQLSTATE class 08 (connection exception), 57P01–57P03 (shut down, crashed,
 * starting up) or 53300 (too many connections).
 */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : "";
  if (NETWORK_CODES.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code) || code === "53300") return true;
  if (typeof e.message === "string" && CONNECTION_MESSAGES.test(e.message)) return true;
  // Connecting to every address of a host fails as one AggregateError.
  if (Array.isArray(e.errors) && e.errors.some(isUnreachable)) return true;
  return e.cause !== undefined && e.cause !== error && isUnreachable(e.cause);
}

/** Runs store work; a server that cannot be reached becomes StoreError `store_unavailable` (503). */
export async function reaching<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof StoreError) && isUnreachable(error)) {
      throw new StoreError("store_unavailable", `the store (Postgres) cannot be reached: ${(error as Error).message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/** Runs a prepared statement; resolves to its rows and the number of rows it touched. */
export async function query(
  db: Queryable,
  text: string,
  values: readonly unknown[] = [],
): Promise<{ rows: Record<string, unknown>[]; changes: number }> {
  const result = await reaching(
    (spanOf(db)?.client ?? db).query({ name: statementName(text), text, values: values as unknown[] }),
  );
  return { rows: result.rows as Record<string, unknown>[], changes: result.rowCount ?? 0 };
}

/** Runs a prepared statement; resolves to its rows. */
export async function rows<T = Record<string, unknown>>(db: Queryable, text: string, values: unknown[] = []): Promise<T[]> {
  return (await query(db, text, values)).rows as T[];
}

/** Runs a prepared statement; resolves to the number of rows it touched. */
export async function run(db: Queryable, text: string, values: unknown[] = []): Promise<number> {
  return (await query(db, text, values)).changes;
}

/**
 * Runs `work` as one transaction on one pooled connection: every statement it runs on this pool,
 * through any repository, is part of it; all are kept or none.
 */
export async function atomically<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  const client = await reaching(pool.connect());
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
    await reaching(client.query("BEGIN"));
    const result = await work();
    await reaching(client.query("COMMIT"));
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
  const client = await reaching(pool.connect());
  try {
    return await committed(client, () => work(client));
  } finally {
    client.release();
  }
}
