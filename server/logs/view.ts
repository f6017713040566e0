/**
 * The log view of one request (spec §2.5): an overview of checks passed and failed, the verdict and
 * latency of every check, and each guardrail's feedback object — beside the request's own facts.
 */
import type { CheckResult, Feedback, GuardrailResult } from "../../core/index.js";
import type { FeedbackRecord, LogEntry } from "../store/log-types.js";
import type { AttemptRecord, HookResultsRecord, ProviderFilters } from "./attempt-record.js";

export type { AttemptRecord };

/** One check in the view. */
export interface CheckView {
  id: string;
  verdict: boolean;
  /** `passed`, `failed` or `errored` (an errored check's verdict is false, but it is told apart). */
  outcome: "passed" | "failed" | "errored";
  execution_time: number;
  error?: CheckResult["error"];
  data: Record<string, unknown>;
}

/** One guardrail in the view. */
export interface GuardrailView {
  id: string;
  side: "input" | "output";
  verdict: boolean;
  async: boolean;
  deny: boolean;
  transformed: boolean;
  execution_time: number;
  created_at: string;
  checks_passed: number;
  checks_failed: number;
  checks_errored: number;
  checks: CheckView[];
  feedback: Feedback | null;
  /** The policy that added the guardrail, when one did. */
  policy?: { id: string; name: string };
  /** Set when a monitor policy ran it: the verdict was logged, never acted on. */
  monitor?: boolean;
}

/** Counts over every guardrail of the request. */
export interface GuardrailOverview {
  guardrails_passed: number;
  guardrails_failed: number;
  checks_passed: number;
  checks_failed: number;
  checks_errored: number;
}

/** The columns of a log entry, as list items and the top of the detail view show them. */
export type LogSummary = Omit<LogEntry, "record"> & {
  guardrails: GuardrailOverview;
  /** Sent by the console's "try it", not by an application. */
  try_it: boolean;
};

function outcome(check: CheckResult): CheckView["outcome"] {
  if (check.error !== undefined) return "errored";
  return check.verdict ? "passed" : "failed";
}

function guardrailView(result: GuardrailResult, side: "input" | "output"): GuardrailView {
  const checks: CheckView[] = (result.checks ?? []).map((check) => ({
    id: check.id,
    verdict: check.verdict,
    outcome: outcome(check),
    execution_time: check.execution_time,
    ...(check.error !== undefined && { error: check.error }),
    data: check.data ?? {},
  }));
  return {
    id: result.id,
    side,
    verdict: result.verdict,
    async: result.async,
    deny: result.deny,
    transformed: result.transformed,
    execution_time: result.execution_time,
    created_at: result.created_at,
    checks_passed: checks.filter((c) => c.outcome === "passed").length,
    checks_failed: checks.filter((c) => c.outcome === "failed").length,
    checks_errored: checks.filter((c) => c.outcome === "errored").length,
    checks,
    feedback: result.feedback ?? null,
    ...policyFields(result),
  };
}

/** The policy fields a policy guardrail's result carries (server/policies/attach.ts). */
function policyFields(result: GuardrailResult): Pick<GuardrailView, "policy" | "monitor"> {
  const tagged = result as GuardrailResult & { policy?: { id: string; name: string }; monitor?: boolean };
  if (!tagged.policy) return {};
  return { policy: { id: tagged.policy.id, name: tagged.policy.name }, ...(tagged.monitor === true && { monitor: true }) };
}

/** Every guardrail result of a record, input side first. */
export function guardrailViews(record: Record<string, unknown>): GuardrailView[] {
  const hooks = record.hook_results as
    { before_request_hooks?: GuardrailResult[]; after_request_hooks?: GuardrailResult[] } | undefined;
  return [
    ...(hooks?.before_request_hooks ?? []).map((r) => guardrailView(r, "input")),
    ...(hooks?.after_request_hooks ?? []).map((r) => guardrailView(r, "output")),
  ];
}

/** Sums the views into the overview. */
export function overview(views: readonly GuardrailView[]): GuardrailOverview {
  return {
    guardrails_passed: views.filter((v) => v.verdict).length,
    guardrails_failed: views.filter((v) => !v.verdict).length,
    checks_passed: views.reduce((n, v) => n + v.checks_passed, 0),
    checks_failed: views.reduce((n, v) => n + v.checks_failed, 0),
    checks_errored: views.reduce((n, v) => n + v.checks_errored, 0),
  };
}

/** A list item: the entry's columns and its guardrail overview. */
export function logSummary(entry: LogEntry): LogSummary {
  const { record, ...columns } = entry;
  return { ...columns, try_it: record.try_it === true, guardrails: overview(guardrailViews(record)) };
}

/** Feedback an application sent on the answer, as the log view shows it. */
export type FeedbackView = Omit<FeedbackRecord, "log_id" | "organization_id" | "workspace_id">;

/** The detail view of one request (`GET /admin/v1/logs/:id`): what the console's log page shows. */
export interface LogView extends LogSummary {
  /** Feedback sent on the answer, oldest first. */
  feedback: FeedbackView[];
  guardrail_results: GuardrailView[];
  hook_results: HookResultsRecord;
  attempts: AttemptRecord[];
  error: AttemptRecord["error"] | null;
  request?: unknown;
  response?: unknown;
  /** Why a logged body is cut or left out, by body. */
  body_notes?: { request?: string; response?: string };
  /** A stream the gateway stopped after it began: by which guardrails, after how much text. */
  stream_stop?: { guardrails: string[]; released_chars: number; mode: string };
  /** What the provider's own content filter said (Azure's), when it said something. */
  provider_filters?: ProviderFilters;
}

/** The detail view of one request, with the feedback sent on its answer (oldest first). */
export function logView(entry: LogEntry, feedback: readonly FeedbackRecord[] = []): LogView {
  const views = guardrailViews(entry.record);
  const { record, ...columns } = entry;
  // The record is the one the gateway wrote (server/logs/record.ts), read back from the store.
  const written = record as Partial<Omit<LogView, keyof LogSummary | "feedback" | "guardrail_results">>;
  return {
    ...columns,
    try_it: record.try_it === true,
    guardrails: overview(views),
    guardrail_results: views,
    feedback: feedback.map(({ id, value, weight, metadata, created_at, updated_at }) => ({
      id,
      value,
      weight,
      metadata,
      created_at,
      updated_at,
    })),
    hook_results: written.hook_results ?? { before_request_hooks: [], after_request_hooks: [] },
    attempts: written.attempts ?? [],
    error: written.error ?? null,
    ...("request" in record && { request: record.request }),
    ...("response" in record && { response: record.response }),
    ...("body_notes" in record && { body_notes: written.body_notes }),
    // A stream the gateway stopped after it began: which guardrails, after how many characters.
    ...("stream_stop" in record && { stream_stop: written.stream_stop }),
    // What the provider's own content filter said (docs/providers.md).
    ...("provider_filters" in record && { provider_filters: written.provider_filters }),
  };
}
