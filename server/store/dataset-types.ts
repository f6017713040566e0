/**
 * Evaluation datasets made from request logs: a record naming the filter and label rule it was
 * made with, and its rows, one per log that had a body, in log order. Rows are written and read in
 * pages, so a dataset of any size never sits whole in memory.
 */
import type { SchemaType } from "../schema-types.js";
import type { datasetRowSchema, evalRunSchema } from "./dataset-schemas.js";
import type { LogFilter } from "./log-types.js";

/** The log filter a dataset was made from: scope, time, route and what guardrails and feedback said. */
export type DatasetFilter = Omit<LogFilter, "organization_id" | "limit" | "cursor"> & { route?: string };

/** One dataset. */
export interface DatasetRecord {
  id: string;
  organization_id: string;
  workspace_id: string;
  name: string;
  filter: DatasetFilter;
  /** The rule each row's label came from at creation (`feedback <= -5 or guardrail:g failed`); null: every row 0. */
  label_rule: string | null;
  /** `building` while rows are written, `ready` once all are. */
  status: "building" | "ready";
  rows: number;
  /** Rows with label 1. */
  positives: number;
  /** Logs the filter selected that could not make a row, by reason. */
  skipped: { no_body: number };
  created_at: string;
  updated_at: string;
}

/** One row: a log's input and output with what its guardrails and feedback said, and a label. */
export type DatasetRow = SchemaType<typeof datasetRowSchema> & { dataset_id: string };

/**
 * An evaluation run of the admin API (server/quality/eval-jobs.ts). The store always holds `report`
 * (null until the run is done); the answer's schema lets it be left out.
 */
export type EvalRunRecord = Omit<SchemaType<typeof evalRunSchema>, "report"> & { report: Record<string, unknown> | null };
