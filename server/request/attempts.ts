/**
 * One attempt at a target: what it yields (a JSON answer, gateway errors included so fallback and
 * retry can look at their status like any other, or an open stream), the record made of it as it
 * ends, and the facts of the whole request once its answer is out, which logs/record.ts builds the
 * record from.
 */
import type { Evaluation, HookResults } from "../../core/index.js";
import type { Refusal } from "../errors.js";
import type { AttemptRecord, RecordFacts, RecordOrigin } from "../logs/record.js";
import { hookResultsJson } from "../logs/record-json.js";
import type { CallFacts } from "../providers/kind.js";
import type { ResolvedProvider } from "../providers/provider.js";
import type { RoutingNode } from "../routing/build.js";
import type { RequestContext } from "./context.js";
import type { Leaf } from "./leaf.js";
import type { RelaySummary, StreamEnforcer } from "./stream-enforcer.js";

export type { Leaf } from "./leaf.js";

/** A complete, non-streamed answer. */
export interface JsonOutcome {
  kind: "json";
  status: number;
  /** The JSON body, or undefined when `raw` carries a non-JSON upstream error body. */
  body?: unknown;
  raw?: string;
  contentType?: string;
  headers: Record<string, string>;
  leaf?: Leaf;
  /** Synchronous results of this attempt (both sides), for the log. */
  hooks?: HookResults;
  /** The response body the client got, without hook_results: what async output guardrails see. */
  output?: Record<string, unknown>;
  retryAfterMs?: number;
  /** The output side's status, when it ran: a 246 is worth retrying only when the output caused it. */
  outputStatus?: 200 | 246 | 446;
  cacheStatus?: "HIT" | "MISS";
  error?: { code: string; message: string };
  /** What the provider's kind noted of the call for the log (its content filter's verdicts). */
  facts?: CallFacts;
  /** The attempts that led to this answer, oldest first, each as the record keeps it. */
  attempts?: AttemptRecord[];
}

/** A streamed answer whose headers are decided and whose events are yet to flow. */
export interface StreamOutcome {
  kind: "stream";
  status: number;
  headers: Record<string, string>;
  relay: StreamEnforcer;
  discard(): void;
  leaf: Leaf;
  /** The output side's status when a held stream's first check decided it before the first byte. */
  outputStatus?: 200 | 246 | 446;
  /** What the provider's kind notes of the call for the log, complete once the stream has ended. */
  facts?: CallFacts;
  /** The attempts that led to this answer, oldest first, each as the record keeps it. */
  attempts?: AttemptRecord[];
}

/**
 * A walk over targets given up because the client left (a retry wait or an upstream call
 * aborted): the attempts made so far, for the record of the 499.
 */
export class Abandoned extends Error {
  constructor(
    override readonly cause: unknown,
    readonly attempts: AttemptRecord[],
  ) {
    super("the client closed the connection");
  }
}

export type Outcome = JsonOutcome | StreamOutcome;

/** The `hook_results` of a target's synchronous guardrails, or undefined when it has none (spec §2.2). */
export function hookResultsOf(leaf: Leaf | undefined, after: Evaluation | undefined): HookResults | undefined {
  if (!leaf || (!leaf.node.input.sync.length && !leaf.node.output.sync.length)) return undefined;
  return { before_request_hooks: leaf.input?.results ?? [], after_request_hooks: after?.results ?? [] };
}

/**
 * The JSON text of `{ ...body, hook_results }` made from the text `body` was parsed from: the
 * upstream's bytes, with the member added before the closing brace (where the spread puts it).
 */
export function appendHookResults(text: string, body: Record<string, unknown>, hooks: HookResults): string {
  const end = text.lastIndexOf("}");
  const head = `${text.slice(0, end)}${Object.keys(body).length ? "," : ""}"hook_results":`;
  // Written through the record's writer, which keeps each result's text (the record reuses it),
  // into one flat text with the answer around it.
  return hookResultsJson(hooks, head, text.slice(end)) ?? `${head}null${text.slice(end)}`;
}

/**
 * The status retry looks at. Retry repeats the upstream call and the output side, never the input
 * side, so a 246 that only the input side caused cannot improve.
 */
export function retryStatus(outcome: Outcome): number {
  if (outcome.status !== 246) return outcome.status;
  return outcome.outputStatus === 246 ? 246 : 200;
}

/** Whether an HTTP status is a success (2xx). */
export function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Frees what an outcome holds when it is not the one answered. */
export function discardOutcome(outcome: Outcome): void {
  if (outcome.kind === "stream") outcome.discard();
}

/** How the log names a provider: its slug when the request named one, else its kind. */
export function providerLabel(provider: ResolvedProvider): string {
  return provider.slug ? `@${provider.slug}` : provider.name;
}

/** Where a request came from, as its record says. */
export function recordOrigin(ctx: RequestContext): RecordOrigin {
  return {
    workspaceId: ctx.identity.workspaceId,
    apiKeyId: ctx.identity.id,
    route: ctx.endpoint.route,
    requestType: ctx.endpoint.requestType,
    stream: ctx.stream,
    ...(ctx.routing.configId && { configId: ctx.routing.configId }),
    inlineGuardrails: ctx.routing.inlineGuardrails,
  };
}

/**
 * The facts of a request that its answer, stream and refusal tell, `ended` at that time; what
 * finishes later (asynchronous results, settlement, bodies) the gateway adds.
 */
export function recordFacts(
  ctx: RequestContext,
  outcome: Outcome | undefined,
  stream: RelaySummary | undefined,
  failure: Refusal | undefined,
  ended: number,
  attempts: AttemptRecord[],
): RecordFacts {
  const leaf = outcome?.leaf;
  const json = outcome?.kind === "json" ? outcome : undefined;
  const facts: RecordFacts = {
    id: ctx.id,
    started: ctx.started,
    ended,
    origin: recordOrigin(ctx),
    status: outcome?.status ?? failure?.status ?? 0,
    attempts,
    // A stream's output results come with its ending (`stream.output`).
    hookResults: {
      before_request_hooks: json?.hooks?.before_request_hooks ?? leaf?.input?.results ?? [],
      ...(json && { after_request_hooks: json.hooks?.after_request_hooks ?? [] }),
    },
    clientClosed: ctx.signal.aborted,
  };
  if (leaf) facts.provider = providerLabel(leaf.provider);
  if (leaf?.phase.model) facts.model = leaf.phase.model;
  if (json?.cacheStatus) facts.cacheStatus = json.cacheStatus;
  const error = failure ? { code: failure.code, message: failure.message } : json?.error;
  if (error) facts.error = error;
  if (stream) facts.stream = stream;
  if (outcome?.facts?.provider_filters) facts.providerFilters = outcome.facts.provider_filters;
  return facts;
}

/** The record of one attempt at a target; `beforeUpstream` marks one the input side or a refusal ended. */
export function attemptOf(
  node: RoutingNode,
  leaf: Leaf | undefined,
  status: number,
  started: number,
  outcome?: JsonOutcome,
  beforeUpstream = false,
): AttemptRecord {
  const attempt: AttemptRecord = { target: node.path, status, latency_ms: Number((performance.now() - started).toFixed(3)) };
  if (beforeUpstream) attempt.before_upstream = true;
  if (leaf) attempt.provider = providerLabel(leaf.provider);
  if (leaf?.phase.model) attempt.model = leaf.phase.model;
  if (outcome?.cacheStatus) attempt.cache_status = outcome.cacheStatus;
  if (outcome?.error) attempt.error = outcome.error;
  if (outcome?.facts?.provider_filters) attempt.provider_filters = outcome.facts.provider_filters;
  const hooks = outcome?.hooks ?? hookResultsOf(leaf, undefined);
  if (hooks) attempt.hook_results = hooks;
  return attempt;
}
