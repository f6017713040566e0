/**
 * JSON Schemas of a dataset's rows and of an evaluation run, as the store keeps them and the admin
 * API answers with them (server/admin/routes/quality.ts); store/dataset-types.ts derives their types.
 */
import { nullable } from "../schema-types.js";

const str = { type: "string" } as const;

/** One row: a log's input and output with what its guardrails and feedback said, and a label. */
export const datasetRowSchema = {
  type: "object",
  properties: {
    // Position in the dataset, from 0.
    seq: { type: "integer" },
    log_id: str,
    input: str,
    output: nullable(str),
    // Each guardrail's verdict on the request.
    verdicts: { type: "object", additionalProperties: { type: "string", enum: ["pass", "fail"] } },
    // Ids of the checks that failed, `guardrail/check`.
    failed_checks: { type: "array", items: str },
    // The values of the feedback sent on the answer, oldest first.
    feedback: { type: "array", items: { type: "integer" } },
    label: { type: "integer", enum: [0, 1] },
  },
  required: ["seq", "log_id", "input", "output", "verdicts", "failed_checks", "feedback", "label"],
  additionalProperties: false,
} as const;

/** An evaluation run of the admin API (server/quality/eval-jobs.ts). */
export const evalRunSchema = {
  type: "object",
  properties: {
    id: str,
    organization_id: str,
    workspace_id: str,
    name: str,
    status: { type: "string", enum: ["running", "done", "failed"] },
    // Why it failed.
    error: nullable(str),
    // The report (format `guardgate.eval/1`) once done.
    report: nullable({ type: "object", additionalProperties: true }),
    created_at: str,
    updated_at: str,
  },
  required: ["id", "organization_id", "workspace_id", "name", "status", "error", "created_at", "updated_at"],
  additionalProperties: false,
} as const;
