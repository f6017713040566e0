/**
 * The SQLite request-log repository: a batch is one transaction (the log row plus one row per
 * guardrail and per check result); queries page newest first with a (created_at, id) cursor.
 */
import type Database from "better-sqlite3";
import { invalid } from "../errors.js";
import { decodeCursor, encodeCursor } from "../log-cursor.js";
import {
  type CheckStats,
  type GuardrailAggregate,
  type GuardrailStats,
  guardrailRows,
  type LogEntry,
  type LogFilter,
  type LogPage,
  latencyStats,
  type NewLogEntry,
  type SpendFilter,
} from "../log-types.js";
import type { LogRepository } from "../repository.js";
import { DEFAULT_LOCK_WAIT_MS, waitForLock } from "./lock-wait.js";
import { RowCodec } from "./codec.js";

const COLUMNS = {
  id: "text",
  created_at: "text",
  organization_id: "text",
  workspace_id: "text",
  api_key_id: "text",
  route: "text",
  request_type: "text",
  status: "number",
  latency_ms: "number",
  upstream_latency_ms: "number",
  provider: "text",
  provider_id: "text",
  integration_id: "text",
  model: "text",
  config_id: "text",
  cache_status: "text",
  retry_count: "number",
  target: "text",
  input_tokens: "number",
  output_tokens: "number",
  cost: "number",
  error_code: "text",
} as const;
const entries = new RowCodec<LogEntry>({ ...COLUMNS, record: "json" });
/** For inserts: the record column is given as JSON text. */
const encodedEntries = new RowCodec<NewLogEntry & { record: string }>({ ...COLUMNS, record: "text" });

/** Default and largest page sizes. */
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

interface Where {
  clauses: string[];
  params: Record<string, unknown>;
}

/** Scope and time conditions on a table with organization_id, workspace_id and created_at. */
function scopeWhere(filter: LogFilter, alias: string): Where {
  const where: Where = { clauses: [], params: {} };
  if (filter.organization_id !== undefined) {
    where.clauses.push(`${alias}.organization_id = @organization_id`);
    where.params.organization_id = filter.organization_id;
  }
  if (filter.workspace_id !== undefined) {
    where.clauses.push(`${alias}.workspace_id = @workspace_id`);
    where.params.workspace_id = filter.workspace_id;
  }
  if (filter.from !== undefined) {
    where.clauses.push(`${alias}.created_at >= @from`);
    where.params.from = filter.from;
  }
  if (filter.to !== undefined) {
    where.clauses.push(`${alias}.created_at < @to`);
    where.params.to = filter.to;
  }
  return where;
}

function whereSql(where: Where): string {
  return where.clauses.length ? `WHERE ${where.clauses.join(" AND ")}` : "";
}

export class SqliteLogs implements LogRepository {
  readonly #insertEntry: Database.Statement;
  readonly #insertGuardrail: Database.Statement;
  readonly #insertCheck: Database.Statement;
  readonly #insertBatch: Database.Transaction<(batch: NewLogEntry[]) => void>;

  constructor(
    private readonly db: Database.Database,
    /** How long a batch waits in all for another connection's write lock, ms (lock-wait.ts). */
    private readonly lockWaitMs = DEFAULT_LOCK_WAIT_MS,
  ) {
    // OR IGNORE: a batch written again after a crash between commit and acknowledgement is a no-op.
    // Positional parameters: a request with guardrails writes a row per guardrail and per check.
    this.#insertEntry = db.prepare(encodedEntries.positionalInsertSql("request_logs").replace("INSERT", "INSERT OR IGNORE"));
    this.#insertGuardrail = db.prepare(
      `INSERT INTO log_guardrails (log_id, seq, created_at, organization_id, workspace_id, guardrail_id, side, async, deny, verdict, execution_time)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertCheck = db.prepare(
      `INSERT INTO log_checks (log_id, guardrail_seq, seq, created_at, organization_id, workspace_id, guardrail_id, check_id, verdict, errored, execution_time)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertBatch = db.transaction((batch: NewLogEntry[]) => {
      for (const entry of batch) {
        // The sink sends the record as text with its guardrail rows; without them, the text is read for them.
        const text = typeof entry.record === "string" ? entry.record : JSON.stringify(entry.record);
        if (this.#insertEntry.run(encodedEntries.encodeValues({ ...entry, record: text })).changes === 0) continue;
        const rows =
          entry.guardrails ??
          guardrailRows(typeof entry.record === "string" ? (JSON.parse(entry.record) as Record<string, unknown>) : entry.record);
        const { id, created_at, organization_id, workspace_id } = entry;
        for (const row of rows) {
          this.#insertGuardrail.run(
            id,
            row.seq,
            created_at,
            organization_id,
            workspace_id,
            row.guardrail_id,
            row.side,
            row.async ? 1 : 0,
            row.deny ? 1 : 0,
            row.verdict ? 1 : 0,
            row.execution_time,
          );
          for (const check of row.checks) {
            this.#insertCheck.run(
              id,
              row.seq,
              check.seq,
              created_at,
              organization_id,
              workspace_id,
              row.guardrail_id,
              check.check_id,
              check.verdict ? 1 : 0,
              check.errored ? 1 : 0,
              check.execution_time,
            );
          }
        }
      }
    });
  }

  async insert(batch: NewLogEntry[]): Promise<void> {
    // A batch that found the lock taken was rolled back whole, so it is tried again whole.
    if (batch.length) await waitForLock(() => this.#insertBatch.immediate(batch), this.lockWaitMs);
  }

  async get(id: string): Promise<LogEntry | undefined> {
    const row = this.db.prepare("SELECT * FROM request_logs WHERE id = ?").get(id) as Record<string, unknown> | undefined;
    return row && entries.decode(row);
  }

  async query(filter: LogFilter): Promise<LogPage> {
    const limit = Math.min(Math.max(1, filter.limit ?? DEFAULT_PAGE), MAX_PAGE);
    const where = scopeWhere(filter, "l");
    if (filter.status?.length) {
      const names = filter.status.map((status, i) => {
        where.params[`status${i}`] = status;
        return `@status${i}`;
      });
      where.clauses.push(`l.status IN (${names.join(", ")})`);
    }
    if (filter.model !== undefined) {
      where.clauses.push("l.model = @model");
      where.params.model = filter.model;
    }
    const verdict = filter.verdict === undefined ? undefined : filter.verdict === "pass" ? 1 : 0;
    if (verdict !== undefined) where.params.verdict = verdict;
    if (filter.guardrail_id !== undefined) where.params.guardrail_id = filter.guardrail_id;
    // The list walks the logs newest first and looks each one's results up by log id (the primary
    // key). The unary `+` keeps SQLite from using the guardrail_id / check_id indexes here instead:
    // those scan every result of the guardrail or check for each log, quadratic in the log's size.
    if (filter.check_id !== undefined) {
      where.params.check_id = filter.check_id;
      const conditions = ["c.log_id = l.id", "+c.check_id = @check_id"];
      if (filter.guardrail_id !== undefined) conditions.push("+c.guardrail_id = @guardrail_id");
      if (verdict !== undefined) conditions.push("c.verdict = @verdict");
      where.clauses.push(`EXISTS (SELECT 1 FROM log_checks c WHERE ${conditions.join(" AND ")})`);
    } else if (filter.guardrail_id !== undefined || verdict !== undefined) {
      const conditions = ["g.log_id = l.id"];
      if (filter.guardrail_id !== undefined) conditions.push("+g.guardrail_id = @guardrail_id");
      if (verdict !== undefined) conditions.push("g.verdict = @verdict");
      where.clauses.push(`EXISTS (SELECT 1 FROM log_guardrails g WHERE ${conditions.join(" AND ")})`);
    }
    if (filter.feedback_min !== undefined || filter.feedback_max !== undefined) {
      const conditions = ["f.log_id = l.id"];
      if (filter.feedback_min !== undefined) {
        conditions.push("f.value >= @feedback_min");
        where.params.feedback_min = filter.feedback_min;
      }
      if (filter.feedback_max !== undefined) {
        conditions.push("f.value <= @feedback_max");
        where.params.feedback_max = filter.feedback_max;
      }
      where.clauses.push(`EXISTS (SELECT 1 FROM log_feedback f WHERE ${conditions.join(" AND ")})`);
    }
    if (filter.cursor !== undefined) {
      const position = decodeCursor(filter.cursor);
      if (!position) throw invalid("cursor: is not a cursor from a previous page", "invalid_cursor");
      where.clauses.push("(l.created_at < @cursor_time OR (l.created_at = @cursor_time AND l.id < @cursor_id))");
      where.params.cursor_time = position.created_at;
      where.params.cursor_id = position.id;
    }
    where.params.limit = limit + 1;
    const rows = this.db
      .prepare(`SELECT l.* FROM request_logs l ${whereSql(where)} ORDER BY l.created_at DESC, l.id DESC LIMIT @limit`)
      .all(where.params) as Record<string, unknown>[];
    const items = rows.slice(0, limit).map((row) => entries.decode(row));
    const last = items.at(-1);
    return { items, next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, last.id) : null };
  }

  async aggregate(filter: LogFilter): Promise<GuardrailAggregate> {
    const guardrailWhere = scopeWhere(filter, "g");
    if (filter.guardrail_id !== undefined) {
      guardrailWhere.clauses.push("g.guardrail_id = @guardrail_id");
      guardrailWhere.params.guardrail_id = filter.guardrail_id;
    }
    const guardrailStats: GuardrailStats[] = [];
    let current: { id: string; passed: number; failed: number; latencies: number[] } | undefined;
    const closeGuardrail = () => {
      if (!current) return;
      guardrailStats.push({
        guardrail_id: current.id,
        runs: current.passed + current.failed,
        passed: current.passed,
        failed: current.failed,
        latency_ms: latencyStats(current.latencies),
      });
    };
    // Ordered by latency within each group, so percentiles need no sort in memory.
    const guardrailRowsIt = this.db
      .prepare(
        `SELECT g.guardrail_id AS id, g.verdict AS verdict, g.execution_time AS t FROM log_guardrails g ${whereSql(guardrailWhere)}
         ORDER BY g.guardrail_id, g.execution_time`,
      )
      .iterate(guardrailWhere.params) as Iterable<{ id: string; verdict: number; t: number }>;
    for (const row of guardrailRowsIt) {
      if (current?.id !== row.id) {
        closeGuardrail();
        current = { id: row.id, passed: 0, failed: 0, latencies: [] };
      }
      if (row.verdict) current.passed++;
      else current.failed++;
      current.latencies.push(row.t);
    }
    closeGuardrail();

    const checkWhere = scopeWhere(filter, "c");
    if (filter.guardrail_id !== undefined) {
      checkWhere.clauses.push("c.guardrail_id = @guardrail_id");
      checkWhere.params.guardrail_id = filter.guardrail_id;
    }
    if (filter.check_id !== undefined) {
      checkWhere.clauses.push("c.check_id = @check_id");
      checkWhere.params.check_id = filter.check_id;
    }
    const checkStats: CheckStats[] = [];
    let check: { id: string; passed: number; failed: number; errored: number; latencies: number[] } | undefined;
    const closeCheck = () => {
      if (!check) return;
      checkStats.push({
        check_id: check.id,
        runs: check.passed + check.failed,
        passed: check.passed,
        failed: check.failed,
        errored: check.errored,
        latency_ms: latencyStats(check.latencies),
      });
    };
    const checkRowsIt = this.db
      .prepare(
        `SELECT c.check_id AS id, c.verdict AS verdict, c.errored AS errored, c.execution_time AS t FROM log_checks c ${whereSql(checkWhere)}
         ORDER BY c.check_id, c.execution_time`,
      )
      .iterate(checkWhere.params) as Iterable<{ id: string; verdict: number; errored: number; t: number }>;
    for (const row of checkRowsIt) {
      if (check?.id !== row.id) {
        closeCheck();
        check = { id: row.id, passed: 0, failed: 0, errored: 0, latencies: [] };
      }
      if (row.verdict) check.passed++;
      else check.failed++;
      if (row.errored) check.errored++;
      check.latencies.push(row.t);
    }
    closeCheck();
    return { guardrails: guardrailStats, checks: checkStats };
  }

  async spend(filter: SpendFilter): Promise<number> {
    const clauses: string[] = [];
    const params: Record<string, unknown> = {};
    for (const key of ["workspace_id", "integration_id", "provider_id"] as const) {
      if (filter[key] !== undefined) {
        clauses.push(`${key} = @${key}`);
        params[key] = filter[key];
      }
    }
    if (filter.since !== undefined) {
      clauses.push("created_at >= @since");
      params.since = filter.since;
    }
    const sql = `SELECT COALESCE(SUM(cost), 0) AS spent FROM request_logs ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""}`;
    return (this.db.prepare(sql).get(params) as { spent: number }).spent;
  }
}
