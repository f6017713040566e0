/**
 * Evaluation datasets made from request logs: a record naming the filter and label rule it was
 * made with, and its rows, one per log that had a body, in log order. Rows are written and read in
 * pages, so a dataset of any size never sits whole in memory.
 */
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
export interface DatasetRow {
  dataset_id: string;
  /** Position in the dataset, from 0. */
  seq: number;
  log_id: string;
  input: string;
  output: string | null;
  /** Each guardrail's verdict on the request. */
  verdicts: Record<string, "pass" | "fail">;
  /** Ids of the checks that failed, `guardrail/check`. */
  failed_checks: string[];
  /** The values of the feedback sent on the answer, oldest first. */
  feedback: number[];
  label: 0 | 1;
}

/** An evaluation run of the admin API (server/quality/eval-jobs.ts). */
export interface EvalRunRecord {
  id: string;
  organization_id: string;
  workspace_id: string;
  name: string;
  status: "running" | "done" | "failed";
  /** Why it failed. */
  error: string | null;
  /** The report (format `guardgate.eval/1`) once done. */
  report: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}
