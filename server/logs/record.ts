/**
 * The request-log record: the one shape every writer of the log (inference routes, hook routes,
 * refusals) hands to a `RequestLogSink`, and the builders that make it from what a request did.
 * Sinks add what only they know (the store sink: organization and provider ids, tokens as columns).
 */
import type { GuardrailResult } from "../../core/index.js";
import type { AttemptRecord, FilterVerdict, HookResultsRecord, ProviderFilters } from "./attempt-record.js";
import { keptBody } from "./body-cap.js";

export type { AttemptRecord, FilterVerdict, HookResultsRecord, ProviderFilters };

/** Whether an attempt failed at the upstream: its error answer, or the gateway's failure to reach or read it. */
export function failedUpstream(attempt: AttemptRecord): boolean {
  if (attempt.cache_status === "HIT" || attempt.before_upstream) return false;
  if (attempt.error) return attempt.error.code.startsWith("upstream_") || attempt.error.code === "stream_broken";
  // Without an error of the gateway's own, a failing status is the upstream's (an input deny is 446).
  return attempt.status >= 400 && attempt.status !== 446;
}

/** Token usage of one answer; `estimated` when counted by the gateway rather than reported upstream. */
export interface LogUsage {
  input_tokens: number;
  output_tokens: number;
  estimated?: boolean;
}

/** What settling a request's admission adds to its record (limits and spend, docs/management.md). */
export interface SettledFields {
  usage?: LogUsage;
  cost?: number;
  provider_id?: string;
  integration_id?: string;
}

/** What the log keeps about one request. Never holds credentials. */
export interface RequestLogRecord extends SettledFields {
  id: string;
  created_at: string;
  workspace_id: string;
  api_key_id: string;
  route: string;
  request_type: string;
  stream: boolean;
  status: number;
  latency_ms: number;
  config_id?: string;
  /** Ids of guardrails the caller wrote out in its request rather than naming a saved one (metrics label them `inline`). */
  inline_guardrails?: readonly string[];
  provider?: string;
  model?: string;
  cache_status?: "HIT" | "MISS";
  attempts: AttemptRecord[];
  /** Every guardrail result of the final attempt, synchronous and asynchronous. */
  hook_results: HookResultsRecord;
  /**
   * True when a synchronous output guardrail denied a streamed response. In `after` mode the text
   * was already sent, so the deny is reported (and recorded here) but not enforced.
   */
  stream_output_denied?: boolean;
  /** True when streamed output guardrails were skipped because the stream carried no text. */
  stream_output_skipped?: boolean;
  /** What the provider's own content filter said of the final attempt (Azure's content filter), when it said something. */
  provider_filters?: ProviderFilters;
  /** A stream the gateway stopped after it began: by which guardrails, after how much text (docs/streaming.md). */
  stream_stop?: { guardrails: string[]; released_chars: number; mode: string };
  error?: { code: string; message: string };
  /** Bodies, only when the gateway is set to log them; capped (body-cap.ts). */
  request?: unknown;
  response?: unknown;
  /** Why a logged body is cut or left out, by body, when one is. */
  body_notes?: { request?: string; response?: string };
}

/** What a route knows when a request is over, to make its record from. */
export interface RequestFacts {
  id: string;
  /** `performance.now()` when the request arrived: gives the latency and the creation time. */
  started: number;
  /** `performance.now()` when the answer was done (before asynchronous guardrails are awaited); default now. */
  ended?: number;
  workspaceId: string;
  apiKeyId: string;
  route: string;
  /** The base request type; streamed requests are recorded as `stream-<type>`. */
  requestType: string;
  stream: boolean;
  status: number;
  attempts?: AttemptRecord[];
  hookResults: HookResultsRecord;
}

/** A request's record, timed from `started` to `ended`. */
export function requestRecord(facts: RequestFacts): RequestLogRecord {
  const ended = facts.ended ?? performance.now();
  const latency = Number((ended - facts.started).toFixed(3));
  return {
    id: facts.id,
    created_at: new Date(Date.now() - (performance.now() - facts.started)).toISOString(),
    workspace_id: facts.workspaceId,
    api_key_id: facts.apiKeyId,
    route: facts.route,
    request_type: facts.stream ? `stream-${facts.requestType}` : facts.requestType,
    stream: facts.stream,
    status: facts.status,
    latency_ms: latency,
    attempts: facts.attempts ?? [],
    hook_results: facts.hookResults,
  };
}

/** One side's results placed in the `hook_results` shape. */
export function sideResults(side: "input" | "output", results: GuardrailResult[]): HookResultsRecord {
  return {
    before_request_hooks: side === "input" ? results : [],
    after_request_hooks: side === "output" ? results : [],
  };
}

/** Adds the bodies to a record, each capped at `maxBytes` of JSON, with a note where one is cut or left out. */
export function keepBodies(record: RequestLogRecord, request: unknown, response: unknown, maxBytes: number): void {
  const notes: NonNullable<RequestLogRecord["body_notes"]> = {};
  const kept = keptBody(request, maxBytes);
  if (kept.body !== undefined) record.request = kept.body;
  if (kept.note) notes.request = kept.note;
  if (response !== undefined) {
    const out = keptBody(response, maxBytes);
    if (out.body !== undefined) record.response = out.body;
    if (out.note) notes.response = out.note;
  }
  if (notes.request || notes.response) record.body_notes = notes;
}
