/**
 * Datasets made from logs (the record, and its rows written and read in pages) and evaluation runs,
 * for both SQL stores. Writing rows one statement each in a transaction is what SQLite does best;
 * the Postgres store overrides the two row writes with single statements (postgres/datasets.ts).
 */
import type { DatasetRecord, DatasetRow, EvalRunRecord } from "../dataset-types.js";
import type { DatasetRepository, EvalRunRepository, Patch } from "../repository.js";
import { type Driver, Query, Table, type Work } from "./table.js";
import { DATASET_ROWS, DATASETS, EVAL_RUNS } from "./tables.js";

export class Datasets implements DatasetRepository {
  readonly #table: Table<DatasetRecord>;
  readonly #rows: Table<DatasetRow>;

  constructor(protected readonly db: Driver) {
    this.#table = new Table(DATASETS, db.dialect);
    this.#rows = new Table(DATASET_ROWS, db.dialect);
  }

  async create(record: DatasetRecord): Promise<DatasetRecord | undefined> {
    return (await this.db.run(this.#table.insert(record, "ignore"))) ? record : undefined;
  }

  async get(id: string): Promise<DatasetRecord | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<DatasetRecord[]> {
    return this.db.run(this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }));
  }

  async update(
    id: string,
    patch: Patch<DatasetRecord, "status" | "rows" | "positives" | "skipped">,
    updatedAt: string,
  ): Promise<DatasetRecord | undefined> {
    return this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
  }

  *#append(rows: DatasetRow[]): Work<void> {
    for (const row of rows) yield* this.#rows.insert(row);
  }

  async appendRows(rows: DatasetRow[]): Promise<void> {
    if (rows.length) await this.db.atomic(this.#append(rows));
  }

  async rows(datasetId: string, page: { after: number; limit: number }): Promise<DatasetRow[]> {
    const q = new Query(this.db.dialect);
    const rest = ` WHERE dataset_id = ${q.param(datasetId)} AND seq > ${q.param(page.after)} ORDER BY seq LIMIT ${q.param(page.limit)}`;
    return this.db.run(this.#rows.select(q, rest));
  }

  *#relabel(datasetId: string, logId: string, label: 0 | 1): Work<0 | 1 | undefined> {
    const where = { dataset_id: datasetId, log_id: logId };
    const before = yield* this.#rows.one(where);
    if (before) yield* this.#rows.update(where, { label });
    return before?.label;
  }

  async label(datasetId: string, logId: string, label: 0 | 1): Promise<0 | 1 | undefined> {
    return this.db.atomic(this.#relabel(datasetId, logId, label));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(this.#table.discard({ id }))) > 0;
  }
}

export class EvalRuns implements EvalRunRepository {
  readonly #table: Table<EvalRunRecord>;

  constructor(private readonly db: Driver) {
    this.#table = new Table(EVAL_RUNS, db.dialect);
  }

  async create(record: EvalRunRecord): Promise<EvalRunRecord | undefined> {
    return (await this.db.run(this.#table.insert(record, "ignore"))) ? record : undefined;
  }

  async get(id: string): Promise<EvalRunRecord | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<EvalRunRecord[]> {
    return this.db.run(this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }));
  }

  async update(
    id: string,
    patch: Patch<EvalRunRecord, "status" | "error" | "report">,
    updatedAt: string,
  ): Promise<EvalRunRecord | undefined> {
    return this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
  }
}
