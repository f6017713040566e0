/**
 * The Postgres request-log repository. A batch is one multi-row insert of parallel arrays (one
 * prepared statement whatever the batch's size); Postgres derives each row's compact guardrail
 * results from the record's text, so the gateway parses nothing it already encoded. Rows land in
 * day partitions made on demand; queries page newest first with a (created_at, id) cursor.
 */
import type pg from "pg";
import { invalid } from "../errors.js";
import { decodeCursor, encodeCursor } from "../log-cursor.js";
import {
  type GuardrailAggregate,
  type LatencyStats,
  type LogEntry,
  type LogFilter,
  type LogPage,
  type NewLogEntry,
  type SpendFilter,
} from "../log-types.js";
import type { LogRepository } from "../repository.js";
import { DEFAULT_PAGE, MAX_PAGE } from "../sqlite/logs.js";
import type { LogPartitions } from "./partitions.js";
import { rows, run } from "./sql.js";

/** The columns written as given, with their array types for the insert. */
const COLUMNS: ReadonlyArray<readonly [keyof LogEntry, string]> = [
  ["id", "text"],
  ["created_at", "timestamptz"],
  ["organization_id", "text"],
  ["workspace_id", "text"],
  ["api_key_id", "text"],
  ["route", "text"],
  ["request_type", "text"],
  ["status", "integer"],
  ["latency_ms", "float8"],
  ["upstream_latency_ms", "float8"],
  ["provider", "text"],
  ["provider_id", "text"],
  ["integration_id", "text"],
  ["model", "text"],
  ["config_id", "text"],
  ["cache_status", "text"],
  ["retry_count", "integer"],
  ["target", "text"],
  ["input_tokens", "integer"],
  ["output_tokens", "integer"],
  ["cost", "float8"],
  ["error_code", "text"],
];

const NAMES = COLUMNS.map(([name]) => name);
const RECORD_PARAM = COLUMNS.length + 1;

// ON CONFLICT: a batch written again after a failure between commit and acknowledgement is a no-op.
const INSERT_SQL = `INSERT INTO request_logs (${NAMES.join(", ")}, hooks, record)
  SELECT ${NAMES.map((name) => `u.${name}`).join(", ")}, guardgate_log_hooks(u.record::jsonb), u.record
  FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(", ")}, $${RECORD_PARAM}::text[])
    AS u(${NAMES.join(", ")}, record)
  ON CONFLICT DO NOTHING`;

const SELECT_ENTRY = `SELECT ${NAMES.map((name) => `l.${name}`).join(", ")}, l.record FROM request_logs l`;

function decode(row: Record<string, unknown>): LogEntry {
  const entry: Record<string, unknown> = {};
  for (const name of NAMES) entry[name] = row[name] ?? null;
  entry.record = JSON.parse(row.record as string);
  return entry as unknown as LogEntry;
}

/** WHERE clauses with their numbered parameters. */
class Where {
  readonly clauses: string[] = [];
  readonly values: unknown[] = [];

  add(clause: (param: string) => string, value: unknown): void {
    this.values.push(value);
    this.clauses.push(clause(`$${this.values.length}`));
  }

  /** The next parameter's placeholder, for a value pushed by the caller. */
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  get sql(): string {
    return this.clauses.length ? `WHERE ${this.clauses.join(" AND ")}` : "";
  }
}

function scopeWhere(filter: LogFilter): Where {
  const where = new Where();
  if (filter.organization_id !== undefined) where.add((p) => `l.organization_id = ${p}`, filter.organization_id);
  if (filter.workspace_id !== undefined) where.add((p) => `l.workspace_id = ${p}`, filter.workspace_id);
  if (filter.from !== undefined) where.add((p) => `l.created_at >= ${p}::timestamptz`, filter.from);
  if (filter.to !== undefined) where.add((p) => `l.created_at < ${p}::timestamptz`, filter.to);
  return where;
}

/** Percentiles by nearest rank, as `latencyStats` gives them: `percentile_disc` is that rank. */
const STATS_SQL = (value: string) =>
  `percentile_disc(ARRAY[0.5, 0.9, 0.95, 0.99]) WITHIN GROUP (ORDER BY ${value}) AS p, max(${value}) AS max`;

function stats(row: { p: number[]; max: number }): LatencyStats {
  const [p50 = 0, p90 = 0, p95 = 0, p99 = 0] = row.p;
  return { p50, p90, p95, p99, max: row.max };
}

export class PgLogs implements LogRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly partitions: LogPartitions,
  ) {}

  async insert(batch: NewLogEntry[]): Promise<void> {
    if (batch.length === 0) return;
    await this.partitions.ensure(batch.map((entry) => entry.created_at));
    const values: unknown[][] = COLUMNS.map(() => []);
    const records: string[] = [];
    for (const entry of batch) {
      COLUMNS.forEach(([name], i) => values[i]!.push(entry[name] ?? null));
      records.push(typeof entry.record === "string" ? entry.record : JSON.stringify(entry.record));
    }
    // One statement: all written or none, with no transaction round trips around it.
    await run(this.db, INSERT_SQL, [...values, records]);
  }

  async get(id: string): Promise<LogEntry | undefined> {
    const [row] = await rows(this.db, `${SELECT_ENTRY} WHERE l.id = $1`, [id]);
    return row && decode(row);
  }

  async query(filter: LogFilter): Promise<LogPage> {
    const limit = Math.min(Math.max(1, filter.limit ?? DEFAULT_PAGE), MAX_PAGE);
    const where = scopeWhere(filter);
    if (filter.status?.length) where.add((p) => `l.status = ANY(${p}::integer[])`, filter.status);
    if (filter.model !== undefined) where.add((p) => `l.model = ${p}`, filter.model);
    const verdict = filter.verdict === undefined ? undefined : filter.verdict === "pass";
    // One containment test on the GIN index: some guardrail result (with some check) as asked.
    const wanted: Record<string, unknown> = {};
    if (filter.guardrail_id !== undefined) wanted.g = filter.guardrail_id;
    if (filter.check_id !== undefined) {
      wanted.c = [{ id: filter.check_id, ...(verdict !== undefined && { v: verdict }) }];
    } else if (verdict !== undefined) {
      wanted.v = verdict;
    }
    if (Object.keys(wanted).length) where.add((p) => `l.hooks @> ${p}::jsonb`, JSON.stringify([wanted]));
    if (filter.feedback_min !== undefined || filter.feedback_max !== undefined) {
      const conditions = ["f.log_id = l.id"];
      if (filter.feedback_min !== undefined) conditions.push(`f.value >= ${where.param(filter.feedback_min)}`);
      if (filter.feedback_max !== undefined) conditions.push(`f.value <= ${where.param(filter.feedback_max)}`);
      where.clauses.push(`EXISTS (SELECT 1 FROM log_feedback f WHERE ${conditions.join(" AND ")})`);
    }
    if (filter.cursor !== undefined) {
      const position = decodeCursor(filter.cursor);
      if (!position || Number.isNaN(Date.parse(position.created_at)))
        throw invalid("cursor: is not a cursor from a previous page", "invalid_cursor");
      const time = where.param(position.created_at);
      const id = where.param(position.id);
      where.clauses.push(`(l.created_at, l.id) < (${time}::timestamptz, ${id})`);
    }
    const limitParam = where.param(limit + 1);
    const found = await rows(
      this.db,
      `${SELECT_ENTRY} ${where.sql} ORDER BY l.created_at DESC, l.id DESC LIMIT ${limitParam}`,
      where.values,
    );
    const items = found.slice(0, limit).map(decode);
    const last = items.at(-1);
    return { items, next_cursor: found.length > limit && last ? encodeCursor(last.created_at, last.id) : null };
  }

  async aggregate(filter: LogFilter): Promise<GuardrailAggregate> {
    const guardrailWhere = scopeWhere(filter);
    if (filter.guardrail_id !== undefined) guardrailWhere.add((p) => `h->>'g' = ${p}`, filter.guardrail_id);
    const time = "(h->>'t')::float8";
    const guardrailRows = await rows<{ id: string; runs: number; passed: number; p: number[]; max: number }>(
      this.db,
      `SELECT (h->>'g') COLLATE "C" AS id, count(*) AS runs, count(*) FILTER (WHERE h->'v' = 'true'::jsonb) AS passed, ${STATS_SQL(time)}
       FROM request_logs l CROSS JOIN LATERAL jsonb_array_elements(l.hooks) h ${guardrailWhere.sql}
       GROUP BY 1 ORDER BY 1`,
      guardrailWhere.values,
    );
    const checkWhere = scopeWhere(filter);
    if (filter.guardrail_id !== undefined) checkWhere.add((p) => `h->>'g' = ${p}`, filter.guardrail_id);
    if (filter.check_id !== undefined) checkWhere.add((p) => `c->>'id' = ${p}`, filter.check_id);
    const checkTime = "(c->>'t')::float8";
    const checkRows = await rows<{ id: string; runs: number; passed: number; errored: number; p: number[]; max: number }>(
      this.db,
      `SELECT (c->>'id') COLLATE "C" AS id, count(*) AS runs, count(*) FILTER (WHERE c->'v' = 'true'::jsonb) AS passed,
         count(*) FILTER (WHERE c->'e' = 'true'::jsonb) AS errored, ${STATS_SQL(checkTime)}
       FROM request_logs l CROSS JOIN LATERAL jsonb_array_elements(l.hooks) h CROSS JOIN LATERAL jsonb_array_elements(h->'c') c
       ${checkWhere.sql} GROUP BY 1 ORDER BY 1`,
      checkWhere.values,
    );
    return {
      guardrails: guardrailRows.map((row) => ({
        guardrail_id: row.id,
        runs: row.runs,
        passed: row.passed,
        failed: row.runs - row.passed,
        latency_ms: stats(row),
      })),
      checks: checkRows.map((row) => ({
        check_id: row.id,
        runs: row.runs,
        passed: row.passed,
        failed: row.runs - row.passed,
        errored: row.errored,
        latency_ms: stats(row),
      })),
    };
  }

  async spend(filter: SpendFilter): Promise<number> {
    const where = new Where();
    for (const key of ["workspace_id", "integration_id", "provider_id"] as const) {
      if (filter[key] !== undefined) where.add((p) => `l.${key} = ${p}`, filter[key]);
    }
    if (filter.since !== undefined) where.add((p) => `l.created_at >= ${p}::timestamptz`, filter.since);
    const [row] = await rows<{ spent: number }>(
      this.db,
      `SELECT COALESCE(SUM(l.cost), 0)::float8 AS spent FROM request_logs l ${where.sql}`,
      where.values,
    );
    return row?.spent ?? 0;
  }
}
