/**
 * What the pipeline tells the request log: the record of each attempt at a target, made as the
 * attempt ends and returned with its answer, and the facts of the whole request once its answer is out (logs/record.ts builds
 * the record from them).
 */
import type { Refusal } from "../errors.js";
import type { AttemptRecord, RecordFacts, RecordOrigin } from "../logs/record.js";
import type { RoutingNode } from "../routing/build.js";
import type { ResolvedProvider } from "../providers/provider.js";
import { hookResultsOf, type JsonOutcome, type Leaf, type Outcome } from "./outcome.js";
import type { RelaySummary } from "./stream-enforcer.js";
import type { RequestContext } from "./context.js";

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
