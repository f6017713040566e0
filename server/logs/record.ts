/**
 * The request-log record: the one shape every writer of the log (inference routes, hook routes,
 * refusals) hands to a `RequestLogSink`, and `buildRecord`, which makes the whole of it, streams
 * included, from one plain facts object. The facts are this module's own: the log sits below the
 * pipeline, so the gateway fills them from what it knows and nothing here reads a pipeline type.
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
  /** True for a hook evaluation the console's "try it" sent. */
  try_it?: boolean;
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

/**
 * What a request's record says of where it came from. The same for every request of one key on one
 * endpoint under one routing, so a caller may hold one and hand it to every such request's facts.
 */
export interface RecordOrigin {
  workspaceId: string;
  apiKeyId: string;
  route: string;
  /** The base request type; streamed requests are recorded as `stream-<type>`. */
  requestType: string;
  stream: boolean;
  configId?: string;
  /** Ids of guardrails the caller wrote out in its request (`inline_guardrails`). */
  inlineGuardrails: readonly string[];
  /** Sent by the console's "try it" (`x-gateway-try-it: true`), not by an application. */
  tryIt?: boolean;
}

/** How a stream ended, as much of it as the record tells. */
export interface StreamEnding {
  /** The output side's synchronous evaluation, when it ran: it ran after the attempt was recorded. */
  output?: { status: number; results: GuardrailResult[] };
  /** Output guardrails were skipped: the stream carried no text. */
  outputSkipped: boolean;
  /** The gateway stopped the stream after it began. */
  stop?: { guardrails: string[]; released_chars: number; mode: string };
  /** What broke the stream, when something did. */
  error?: unknown;
}

/** Everything a request's record is made of, gathered when the request is over. */
export interface RecordFacts {
  id: string;
  /** `performance.now()` when the request arrived: gives the latency and the creation time. */
  started: number;
  /** `performance.now()` when the answer was done (before asynchronous guardrails are awaited); default now. */
  ended?: number;
  origin: RecordOrigin;
  status: number;
  /** Every attempt made; the last one's output results and filters are completed here after a stream. */
  attempts?: AttemptRecord[];
  /**
   * The final attempt's synchronous results. Without `after_request_hooks`, the output side's are
   * those of `stream.output` (a stream's output side ran after its answer began).
   */
  hookResults: { before_request_hooks: GuardrailResult[]; after_request_hooks?: GuardrailResult[] };
  /** Results of the asynchronous guardrails, each side's after its synchronous ones. */
  asyncResults?: HookResultsRecord;
  /** The provider of the final attempt, as the log names it (`@slug`, else its kind). */
  provider?: string;
  model?: string;
  cacheStatus?: "HIT" | "MISS";
  /** The error the request was refused with, or its JSON answer's. */
  error?: { code: string; message: string };
  stream?: StreamEnding;
  /** The client went away; a stream that ended without another error is recorded as `client_closed`. */
  clientClosed?: boolean;
  /** What the provider's content filter said of the final attempt. */
  providerFilters?: ProviderFilters;
  /** What settling the request's admission added (usage, cost, ids). */
  settled?: SettledFields;
  /** The bodies to keep, each capped at `maxBytes` of JSON; absent when bodies are not logged. */
  bodies?: { request: unknown; response: unknown; maxBytes: number };
}

/** The record's request type: streamed requests as `stream-<type>`, held once per type. */
const streamTypes = new Map<string, string>();

function recordedType(origin: RecordOrigin): string {
  if (!origin.stream) return origin.requestType;
  let type = streamTypes.get(origin.requestType);
  if (type === undefined) {
    type = `stream-${origin.requestType}`;
    // Request types are a handful of names; the bound only guards against a caller passing others.
    if (streamTypes.size < 64) streamTypes.set(origin.requestType, type);
  }
  return type;
}

/** The error a record names, if the request ended in one. */
export function recordError(facts: RecordFacts): { code: string; message: string } | undefined {
  if (facts.error) return facts.error;
  const stream = facts.stream;
  if (!stream) return undefined;
  if (stream.stop?.guardrails.length) {
    return { code: "hooks_failed", message: `stopped by output guardrail ${stream.stop.guardrails.join(", ")}` };
  }
  if (stream.error !== undefined) {
    const error = stream.error as { code?: string; message?: string };
    return { code: error.code ?? "stream_broken", message: error.message ?? String(stream.error) };
  }
  if (facts.clientClosed) return { code: "client_closed", message: "the client closed the connection before the stream ended" };
  return undefined;
}

/**
 * A request's whole record, timed from `started` to `ended`. Completes the last attempt's record
 * with what only the end of a stream tells (its output results, the provider's filter verdicts).
 */
export function buildRecord(facts: RecordFacts): RequestLogRecord {
  const { origin, stream } = facts;
  const ended = facts.ended ?? performance.now();
  const asyncResults = facts.asyncResults;
  const before = facts.hookResults.before_request_hooks;
  const after = facts.hookResults.after_request_hooks ?? stream?.output?.results ?? [];
  const attempts = facts.attempts ?? [];
  const record: RequestLogRecord = {
    id: facts.id,
    created_at: new Date(Date.now() - (performance.now() - facts.started)).toISOString(),
    workspace_id: origin.workspaceId,
    api_key_id: origin.apiKeyId,
    route: origin.route,
    request_type: recordedType(origin),
    stream: origin.stream,
    status: facts.status,
    latency_ms: Number((ended - facts.started).toFixed(3)),
    attempts,
    hook_results: {
      before_request_hooks: asyncResults?.before_request_hooks.length
        ? [...before, ...asyncResults.before_request_hooks]
        : [...before],
      after_request_hooks: asyncResults?.after_request_hooks.length
        ? [...after, ...asyncResults.after_request_hooks]
        : [...after],
    },
  };
  if (origin.configId) record.config_id = origin.configId;
  if (origin.inlineGuardrails.length) record.inline_guardrails = origin.inlineGuardrails;
  if (origin.tryIt) record.try_it = true;
  if (facts.provider !== undefined) record.provider = facts.provider;
  if (facts.model) record.model = facts.model;
  if (facts.cacheStatus) record.cache_status = facts.cacheStatus;
  const error = recordError(facts);
  if (error) record.error = error;
  if (stream?.output?.status === 446) record.stream_output_denied = true;
  if (stream?.outputSkipped) record.stream_output_skipped = true;
  if (stream?.stop) record.stream_stop = stream.stop;
  if (facts.settled) Object.assign(record, facts.settled);
  // A stream's output side ran, and its content filter spoke, after its attempt was recorded.
  const last = attempts.at(-1);
  if (stream?.output && last?.hook_results) last.hook_results.after_request_hooks = stream.output.results;
  if (facts.providerFilters) {
    record.provider_filters = facts.providerFilters;
    if (last) last.provider_filters = facts.providerFilters;
  }
  if (facts.bodies) keepBodies(record, facts.bodies.request, facts.bodies.response, facts.bodies.maxBytes);
  return record;
}

/** One side's results placed in the `hook_results` shape. */
export function sideResults(side: "input" | "output", results: GuardrailResult[]): HookResultsRecord {
  return {
    before_request_hooks: side === "input" ? results : [],
    after_request_hooks: side === "output" ? results : [],
  };
}

/** Adds the bodies to a record, each capped at `maxBytes` of JSON, with a note where one is cut or left out. */
function keepBodies(record: RequestLogRecord, request: unknown, response: unknown, maxBytes: number): void {
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
