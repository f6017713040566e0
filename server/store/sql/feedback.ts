/** Feedback on answers for both SQL stores: one row per feedback, found by its log's id. */
import type { FeedbackRecord } from "../log-types.js";
import type { FeedbackRepository, Patch } from "../repository.js";
import { type Driver, Query, Table, type Work } from "./table.js";
import { LOG_FEEDBACK } from "./tables.js";

/** Log ids per lookup: below SQLite's bound-parameter limit. */
const CHUNK = 500;

/** Rolls back a batch with a taken id. */
class IdTaken extends Error {}

export class Feedback implements FeedbackRepository {
  readonly #table: Table<FeedbackRecord>;

  constructor(private readonly db: Driver) {
    this.#table = new Table(LOG_FEEDBACK, db.dialect);
  }

  *#insertAll(records: FeedbackRecord[]): Work<void> {
    for (const record of records) if (!(yield* this.#table.insert(record, "ignore"))) throw new IdTaken();
  }

  async insert(records: FeedbackRecord[]): Promise<boolean> {
    if (records.length === 0) return true;
    try {
      await this.db.atomic(this.#insertAll(records));
      return true;
    } catch (error) {
      if (error instanceof IdTaken) return false;
      throw error;
    }
  }

  async get(id: string): Promise<FeedbackRecord | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async update(
    id: string,
    patch: Patch<FeedbackRecord, "value" | "weight" | "metadata">,
    updatedAt: string,
  ): Promise<FeedbackRecord | undefined> {
    return this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
  }

  async forLogs(logIds: readonly string[]): Promise<FeedbackRecord[]> {
    const found: FeedbackRecord[] = [];
    for (let start = 0; start < logIds.length; start += CHUNK) {
      const q = new Query(this.db.dialect);
      const condition = this.db.dialect.oneOf(q, "log_id", logIds.slice(start, start + CHUNK));
      found.push(...(await this.db.run(this.#table.select(q, ` WHERE ${condition}`))));
    }
    return found.sort(oldestFirst);
  }
}

/** Creation order, the id breaking ties. */
function oldestFirst(a: FeedbackRecord, b: FeedbackRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
