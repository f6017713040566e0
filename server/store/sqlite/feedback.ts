/** The SQLite repository of feedback on answers: one row per feedback, found by its log's id. */
import type Database from "better-sqlite3";
import type { FeedbackRecord } from "../log-types.js";
import type { FeedbackRepository, Patch } from "../repository.js";
import { RowCodec } from "./codec.js";
import { SqliteTable } from "./table.js";

const codec = new RowCodec<FeedbackRecord>({
  id: "text",
  log_id: "text",
  organization_id: "text",
  workspace_id: "text",
  value: "number",
  weight: "number",
  metadata: "json",
  created_at: "text",
  updated_at: "text",
});

/** Log ids per lookup: below SQLite's bound-parameter limit. */
const CHUNK = 500;

export class SqliteFeedback implements FeedbackRepository {
  readonly #table: SqliteTable<FeedbackRecord>;
  readonly #insertAll: (records: FeedbackRecord[]) => boolean;

  constructor(private readonly db: Database.Database) {
    this.#table = new SqliteTable(db, "log_feedback", codec);
    this.#insertAll = db.transaction((records: FeedbackRecord[]) => {
      for (const record of records) {
        if (!this.#table.insert(record, { ignoreConflict: true })) throw new IdTaken();
      }
      return true;
    });
  }

  async insert(records: FeedbackRecord[]): Promise<boolean> {
    try {
      return this.#insertAll(records);
    } catch (error) {
      if (error instanceof IdTaken) return false;
      throw error;
    }
  }

  async get(id: string): Promise<FeedbackRecord | undefined> {
    return this.#table.one({ id });
  }

  async update(
    id: string,
    patch: Patch<FeedbackRecord, "value" | "weight" | "metadata">,
    updatedAt: string,
  ): Promise<FeedbackRecord | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    return this.#table.one({ id });
  }

  async forLogs(logIds: readonly string[]): Promise<FeedbackRecord[]> {
    const found: FeedbackRecord[] = [];
    for (let start = 0; start < logIds.length; start += CHUNK) {
      const chunk = logIds.slice(start, start + CHUNK);
      const rows = this.db
        .prepare(`SELECT * FROM log_feedback WHERE log_id IN (${chunk.map(() => "?").join(", ")}) ORDER BY created_at, id`)
        .all(...chunk) as Record<string, unknown>[];
      found.push(...rows.map((row) => codec.decode(row)));
    }
    return found.sort(oldestFirst);
  }
}

/** Creation order, the id breaking ties. */
export function oldestFirst(a: FeedbackRecord, b: FeedbackRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Rolls back a batch with a taken id. */
class IdTaken extends Error {}
