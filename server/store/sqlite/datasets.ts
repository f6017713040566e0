/** The SQLite repository of datasets made from logs: the record, and its rows written and read in pages. */
import type Database from "better-sqlite3";
import type { DatasetRecord, DatasetRow, EvalRunRecord } from "../dataset-types.js";
import type { DatasetRepository, EvalRunRepository, Patch } from "../repository.js";
import { RowCodec } from "./codec.js";
import { SqliteTable } from "./table.js";

const datasets = new RowCodec<DatasetRecord>({
  id: "text",
  organization_id: "text",
  workspace_id: "text",
  name: "text",
  filter: "json",
  label_rule: "text",
  status: "text",
  rows: "number",
  positives: "number",
  skipped: "json",
  created_at: "text",
  updated_at: "text",
});

const rowCodec = new RowCodec<DatasetRow>({
  dataset_id: "text",
  seq: "number",
  log_id: "text",
  input: "text",
  output: "text",
  verdicts: "json",
  failed_checks: "json",
  feedback: "json",
  label: "number",
});

export class SqliteDatasets implements DatasetRepository {
  readonly #table: SqliteTable<DatasetRecord>;
  readonly #rows: SqliteTable<DatasetRow>;
  readonly #append: (rows: DatasetRow[]) => void;
  readonly #relabel: (datasetId: string, logId: string, label: 0 | 1) => 0 | 1 | undefined;

  constructor(private readonly db: Database.Database) {
    this.#table = new SqliteTable(db, "datasets", datasets, "created_at DESC, id DESC");
    this.#rows = new SqliteTable(db, "dataset_rows", rowCodec, "seq");
    const insert = db.prepare(rowCodec.positionalInsertSql("dataset_rows"));
    this.#append = db.transaction((rows: DatasetRow[]) => {
      for (const row of rows) insert.run(rowCodec.encodeValues(row));
    });
    const read = db.prepare("SELECT label FROM dataset_rows WHERE dataset_id = ? AND log_id = ?").pluck();
    const write = db.prepare("UPDATE dataset_rows SET label = ? WHERE dataset_id = ? AND log_id = ?");
    this.#relabel = db.transaction((datasetId: string, logId: string, label: 0 | 1) => {
      const before = read.get(datasetId, logId) as 0 | 1 | undefined;
      if (before !== undefined) write.run(label, datasetId, logId);
      return before;
    });
  }

  async create(record: DatasetRecord): Promise<DatasetRecord | undefined> {
    return this.#table.insert(record, { ignoreConflict: true }) ? record : undefined;
  }

  async get(id: string): Promise<DatasetRecord | undefined> {
    return this.#table.one({ id });
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<DatasetRecord[]> {
    return this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId });
  }

  async update(
    id: string,
    patch: Patch<DatasetRecord, "status" | "rows" | "positives" | "skipped">,
    updatedAt: string,
  ): Promise<DatasetRecord | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    return this.#table.one({ id });
  }

  async appendRows(rows: DatasetRow[]): Promise<void> {
    if (rows.length) this.#append(rows);
  }

  async rows(datasetId: string, page: { after: number; limit: number }): Promise<DatasetRow[]> {
    const found = this.#rows
      .statement("SELECT * FROM dataset_rows WHERE dataset_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(datasetId, page.after, page.limit) as Record<string, unknown>[];
    return found.map((row) => rowCodec.decode(row));
  }

  async label(datasetId: string, logId: string, label: 0 | 1): Promise<0 | 1 | undefined> {
    return this.#relabel(datasetId, logId, label);
  }

  async delete(id: string): Promise<boolean> {
    return this.#table.delete({ id }) > 0;
  }
}

const runs = new RowCodec<EvalRunRecord>({
  id: "text",
  organization_id: "text",
  workspace_id: "text",
  name: "text",
  status: "text",
  error: "text",
  report: "json",
  created_at: "text",
  updated_at: "text",
});

export class SqliteEvalRuns implements EvalRunRepository {
  readonly #table: SqliteTable<EvalRunRecord>;

  constructor(db: Database.Database) {
    this.#table = new SqliteTable(db, "eval_runs", runs, "created_at DESC, id DESC");
  }

  async create(record: EvalRunRecord): Promise<EvalRunRecord | undefined> {
    return this.#table.insert(record, { ignoreConflict: true }) ? record : undefined;
  }

  async get(id: string): Promise<EvalRunRecord | undefined> {
    return this.#table.one({ id });
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<EvalRunRecord[]> {
    return this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId });
  }

  async update(
    id: string,
    patch: Patch<EvalRunRecord, "status" | "error" | "report">,
    updatedAt: string,
  ): Promise<EvalRunRecord | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    return this.#table.one({ id });
  }
}
