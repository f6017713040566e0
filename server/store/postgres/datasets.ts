/** The Postgres repository of datasets made from logs: the record, and its rows written and read in pages. */
import type pg from "pg";
import type { DatasetRecord, DatasetRow, EvalRunRecord } from "../dataset-types.js";
import type { DatasetRepository, EvalRunRepository, Patch } from "../repository.js";
import { PgTable, rows, run } from "./sql.js";

const datasets = new PgTable<DatasetRecord>("datasets", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  name: "plain",
  filter: "json",
  label_rule: "plain",
  status: "plain",
  rows: "plain",
  positives: "plain",
  skipped: "json",
  created_at: "plain",
  updated_at: "plain",
});

// One statement per page of rows, whatever its size: parallel arrays unnested.
const APPEND_SQL = `INSERT INTO dataset_rows (dataset_id, seq, log_id, input, output, verdicts, failed_checks, feedback, label)
  SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::smallint[])`;

function decodeRow(row: Record<string, unknown>): DatasetRow {
  return {
    dataset_id: row.dataset_id as string,
    seq: row.seq as number,
    log_id: row.log_id as string,
    input: row.input as string,
    output: (row.output as string | null) ?? null,
    verdicts: row.verdicts as DatasetRow["verdicts"],
    failed_checks: row.failed_checks as string[],
    feedback: row.feedback as number[],
    label: row.label as 0 | 1,
  };
}

export class PgDatasets implements DatasetRepository {
  constructor(private readonly db: pg.Pool) {}

  async create(record: DatasetRecord): Promise<DatasetRecord | undefined> {
    const inserted = (await run(this.db, `${datasets.insertSql} ON CONFLICT DO NOTHING`, datasets.values(record))) > 0;
    return inserted ? record : undefined;
  }

  async get(id: string): Promise<DatasetRecord | undefined> {
    const [row] = await rows(this.db, "SELECT * FROM datasets WHERE id = $1", [id]);
    return row && datasets.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<DatasetRecord[]> {
    const found =
      filter.workspaceId === undefined
        ? await rows(this.db, 'SELECT * FROM datasets WHERE organization_id = $1 ORDER BY created_at DESC, id COLLATE "C" DESC', [
            filter.organizationId,
          ])
        : await rows(
            this.db,
            'SELECT * FROM datasets WHERE organization_id = $1 AND workspace_id = $2 ORDER BY created_at DESC, id COLLATE "C" DESC',
            [filter.organizationId, filter.workspaceId],
          );
    return found.map((row) => datasets.decode(row));
  }

  async update(
    id: string,
    patch: Patch<DatasetRecord, "status" | "rows" | "positives" | "skipped">,
    updatedAt: string,
  ): Promise<DatasetRecord | undefined> {
    const set = datasets.setClause({ ...patch, updated_at: updatedAt }, 2);
    const [row] = await rows(this.db, `UPDATE datasets SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
    return row && datasets.decode(row);
  }

  async appendRows(list: DatasetRow[]): Promise<void> {
    if (list.length === 0) return;
    await run(this.db, APPEND_SQL, [
      list.map((r) => r.dataset_id),
      list.map((r) => r.seq),
      list.map((r) => r.log_id),
      list.map((r) => r.input),
      list.map((r) => r.output),
      list.map((r) => JSON.stringify(r.verdicts)),
      list.map((r) => JSON.stringify(r.failed_checks)),
      list.map((r) => JSON.stringify(r.feedback)),
      list.map((r) => r.label),
    ]);
  }

  async rows(datasetId: string, page: { after: number; limit: number }): Promise<DatasetRow[]> {
    return (
      await rows(this.db, "SELECT * FROM dataset_rows WHERE dataset_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [
        datasetId,
        page.after,
        page.limit,
      ])
    ).map(decodeRow);
  }

  async label(datasetId: string, logId: string, label: 0 | 1): Promise<0 | 1 | undefined> {
    const [row] = await rows<{ before: 0 | 1 }>(
      this.db,
      `UPDATE dataset_rows r SET label = $3 FROM dataset_rows old
       WHERE r.dataset_id = $1 AND r.log_id = $2 AND old.dataset_id = r.dataset_id AND old.seq = r.seq
       RETURNING old.label AS before`,
      [datasetId, logId, label],
    );
    return row?.before;
  }

  async delete(id: string): Promise<boolean> {
    return (await run(this.db, "DELETE FROM datasets WHERE id = $1", [id])) > 0;
  }
}

const runs = new PgTable<EvalRunRecord>("eval_runs", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  name: "plain",
  status: "plain",
  error: "plain",
  report: "json",
  created_at: "plain",
  updated_at: "plain",
});

export class PgEvalRuns implements EvalRunRepository {
  constructor(private readonly db: pg.Pool) {}

  async create(record: EvalRunRecord): Promise<EvalRunRecord | undefined> {
    const inserted = (await run(this.db, `${runs.insertSql} ON CONFLICT DO NOTHING`, runs.values(record))) > 0;
    return inserted ? record : undefined;
  }

  async get(id: string): Promise<EvalRunRecord | undefined> {
    const [row] = await rows(this.db, "SELECT * FROM eval_runs WHERE id = $1", [id]);
    return row && runs.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<EvalRunRecord[]> {
    const found =
      filter.workspaceId === undefined
        ? await rows(
            this.db,
            'SELECT * FROM eval_runs WHERE organization_id = $1 ORDER BY created_at DESC, id COLLATE "C" DESC',
            [filter.organizationId],
          )
        : await rows(
            this.db,
            'SELECT * FROM eval_runs WHERE organization_id = $1 AND workspace_id = $2 ORDER BY created_at DESC, id COLLATE "C" DESC',
            [filter.organizationId, filter.workspaceId],
          );
    return found.map((row) => runs.decode(row));
  }

  async update(
    id: string,
    patch: Patch<EvalRunRecord, "status" | "error" | "report">,
    updatedAt: string,
  ): Promise<EvalRunRecord | undefined> {
    const set = runs.setClause({ ...patch, updated_at: updatedAt }, 2);
    const [row] = await rows(this.db, `UPDATE eval_runs SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
    return row && runs.decode(row);
  }
}
