/**
 * Datasets on Postgres: the shared repository (sql/datasets.ts), with rows appended and relabelled
 * in one statement each — a page of rows as parallel arrays unnested, the old label read by the
 * update itself — where the shared one takes a statement per row.
 */
import type pg from "pg";
import type { DatasetRow } from "../dataset-types.js";
import { Datasets } from "../sql/datasets.js";
import { PgDriver } from "./driver.js";
import { rows, run } from "./sql.js";

const APPEND_SQL = `INSERT INTO dataset_rows (dataset_id, seq, log_id, input, output, verdicts, failed_checks, feedback, label)
  SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::jsonb[], $9::smallint[])`;

export class PgDatasets extends Datasets {
  constructor(private readonly pool: pg.Pool) {
    super(new PgDriver(pool));
  }

  override async appendRows(list: DatasetRow[]): Promise<void> {
    if (list.length === 0) return;
    await run(this.pool, APPEND_SQL, [
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

  override async label(datasetId: string, logId: string, label: 0 | 1): Promise<0 | 1 | undefined> {
    const [row] = await rows<{ before: 0 | 1 }>(
      this.pool,
      `UPDATE dataset_rows r SET label = $3 FROM dataset_rows old
       WHERE r.dataset_id = $1 AND r.log_id = $2 AND old.dataset_id = r.dataset_id AND old.seq = r.seq
       RETURNING old.label AS before`,
      [datasetId, logId, label],
    );
    return row?.before;
  }
}
