/**
 * JSON Schemas of what the request log holds: a log entry's columns, feedback on an answer, and the
 * per-guardrail and per-check aggregates. store/log-types.ts derives the types from them, and the
 * admin API answers with them (its log list, log view and aggregates).
 */
import { closedRecord, nullable } from "../schema-types.js";

const str = { type: "string" } as const;
const time = { type: "string", format: "date-time" } as const;
const count = { type: "integer" } as const;
const num = nullable({ type: "number" });

/** The columns of a log entry, as queries filter on them; the record itself is kept beside them as JSON. */
export const logColumnsSchema = closedRecord({
  id: str,
  created_at: time,
  organization_id: nullable(str),
  workspace_id: str,
  // The id of the API key record, never the key.
  api_key_id: nullable(str),
  route: str,
  request_type: nullable(str),
  status: count,
  latency_ms: { type: "number" },
  upstream_latency_ms: num,
  // Provider slug or name as the request used it.
  provider: nullable(str),
  provider_id: nullable(str),
  integration_id: nullable(str),
  model: nullable(str),
  config_id: nullable(str),
  cache_status: nullable(str),
  retry_count: count,
  // Config path of the target that answered (`""` for the root).
  target: nullable(str),
  input_tokens: num,
  output_tokens: num,
  cost: num,
  error_code: nullable(str),
});

/** Feedback an application sent on one answer (`POST /v1/feedback`), as the log view shows it. */
export const feedbackSchema = closedRecord({
  id: str,
  value: { type: "integer", minimum: -10, maximum: 10 },
  weight: { type: "number", minimum: 0, maximum: 1 },
  metadata: { type: "object", additionalProperties: { type: "string" } },
  created_at: time,
  updated_at: time,
});

/** Latency percentiles in milliseconds (nearest rank). */
export const latencyStatsSchema = closedRecord({
  p50: { type: "number" },
  p90: { type: "number" },
  p95: { type: "number" },
  p99: { type: "number" },
  max: { type: "number" },
});

/** Counts and latency of one guardrail over a time range. */
export const guardrailStatsSchema = closedRecord({
  guardrail_id: str,
  runs: count,
  passed: count,
  failed: count,
  latency_ms: latencyStatsSchema,
});

/** Counts and latency of one check over a time range; errored runs are also counted in passed or failed by their verdict. */
export const checkStatsSchema = closedRecord({
  check_id: str,
  runs: count,
  passed: count,
  failed: count,
  errored: count,
  latency_ms: latencyStatsSchema,
});
