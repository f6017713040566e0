/**
 * Day partitions of the Postgres request log: made on demand before a batch that needs them (under
 * an advisory lock, so instances making the same day take turns), and dropped whole once every
 * record in them is older than the retention period, which costs no row-by-row delete.
 */
import type pg from "pg";
import { rows, transaction } from "./sql.js";

/** The advisory lock key partition changes hold. */
const PARTITION_LOCK = 0x6c6f6773;

const DAY_MS = 86_400_000;

/** `request_logs_20250101` for the UTC day of a time. */
function partitionName(dayStart: number): string {
  return `request_logs_${new Date(dayStart).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** Makes and drops the request log's day partitions. */
export class LogPartitions {
  readonly #known = new Set<number>();

  constructor(
    private readonly db: pg.Pool,
    /** Days a record is kept; undefined keeps every record. */
    private readonly retentionDays?: number,
  ) {}

  /** Makes the partitions the given times fall in, when missing. */
  async ensure(times: readonly string[]): Promise<void> {
    const missing = new Set<number>();
    for (const time of times) {
      const ms = Date.parse(time);
      if (Number.isNaN(ms)) continue; // Postgres rejects the row with the value named.
      const day = Math.floor(ms / DAY_MS) * DAY_MS;
      if (!this.#known.has(day)) missing.add(day);
    }
    if (missing.size === 0) return;
    await transaction(this.db, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [PARTITION_LOCK]);
      for (const day of missing) {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${partitionName(day)} PARTITION OF request_logs
           FOR VALUES FROM ('${new Date(day).toISOString()}') TO ('${new Date(day + DAY_MS).toISOString()}')`,
        );
      }
    });
    for (const day of missing) this.#known.add(day);
  }

  /** Drops the partitions wholly older than the retention period; resolves to their names. */
  async dropExpired(now = Date.now()): Promise<string[]> {
    if (this.retentionDays === undefined) return [];
    const cutoff = Math.floor((now - this.retentionDays * DAY_MS) / DAY_MS) * DAY_MS;
    return transaction(this.db, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [PARTITION_LOCK]);
      const partitions = await rows<{ name: string }>(
        client,
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = 'request_logs'::regclass`,
      );
      const dropped: string[] = [];
      for (const { name } of partitions) {
        const match = /^request_logs_(\d{4})(\d{2})(\d{2})$/.exec(name);
        if (!match) continue;
        const day = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
        // The partition holds [day, day + 1): every record in it is past the cutoff.
        if (day + DAY_MS > cutoff) continue;
        await client.query(`DROP TABLE ${name}`);
        this.#known.delete(day);
        dropped.push(name);
      }
      return dropped;
    });
  }
}
