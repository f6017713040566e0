/** The Postgres repository of feedback on answers: one row per feedback, found by its log's id. */
import type pg from "pg";
import type { FeedbackRecord } from "../log-types.js";
import type { FeedbackRepository, Patch } from "../repository.js";
import { PgTable, rows, run, transaction } from "./sql.js";

const feedback = new PgTable<FeedbackRecord>("log_feedback", {
  id: "plain",
  log_id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  value: "plain",
  weight: "plain",
  metadata: "json",
  created_at: "plain",
  updated_at: "plain",
});

export class PgFeedback implements FeedbackRepository {
  constructor(private readonly db: pg.Pool) {}

  async insert(records: FeedbackRecord[]): Promise<boolean> {
    if (records.length === 0) return true;
    try {
      await transaction(this.db, async (client) => {
        for (const record of records) await run(client, feedback.insertSql, feedback.values(record));
      });
      return true;
    } catch (error) {
      // unique_violation: an id is taken, and the transaction wrote nothing.
      if ((error as { code?: string }).code === "23505") return false;
      throw error;
    }
  }

  async get(id: string): Promise<FeedbackRecord | undefined> {
    const [row] = await rows(this.db, "SELECT * FROM log_feedback WHERE id = $1", [id]);
    return row && feedback.decode(row);
  }

  async update(
    id: string,
    patch: Patch<FeedbackRecord, "value" | "weight" | "metadata">,
    updatedAt: string,
  ): Promise<FeedbackRecord | undefined> {
    const set = feedback.setClause({ ...patch, updated_at: updatedAt }, 2);
    const [row] = await rows(this.db, `UPDATE log_feedback SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
    return row && feedback.decode(row);
  }

  async forLogs(logIds: readonly string[]): Promise<FeedbackRecord[]> {
    if (logIds.length === 0) return [];
    return (
      await rows(this.db, 'SELECT * FROM log_feedback WHERE log_id = ANY($1::text[]) ORDER BY created_at, id COLLATE "C"', [
        [...logIds],
      ])
    ).map((row) => feedback.decode(row));
  }
}
