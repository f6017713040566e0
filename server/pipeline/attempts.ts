/** The request log's record of each attempt at a target, written as the attempt ends. */
import type { AttemptRecord } from "../logs/record.js";
import type { PlanNode } from "../plan/build.js";
import type { ResolvedProvider } from "../providers/resolve.js";
import { hookResultsOf, type JsonOutcome, type Leaf } from "./outcome.js";
import type { RequestContext } from "./request-context.js";

/** How the log names a provider: its slug when the request named one, else its kind. */
export function providerLabel(provider: ResolvedProvider): string {
  return provider.slug ? `@${provider.slug}` : provider.name;
}

/** Adds one attempt to the request's record; `beforeUpstream` marks one the input side or a refusal ended. */
export function recordAttempt(
  ctx: RequestContext,
  node: PlanNode,
  leaf: Leaf | undefined,
  status: number,
  started: number,
  outcome?: JsonOutcome,
  beforeUpstream = false,
): void {
  const attempt: AttemptRecord = { target: node.path, status, latency_ms: Number((performance.now() - started).toFixed(3)) };
  if (beforeUpstream) attempt.before_upstream = true;
  if (leaf) attempt.provider = providerLabel(leaf.provider);
  if (leaf?.phase.model) attempt.model = leaf.phase.model;
  if (outcome?.cacheStatus) attempt.cache_status = outcome.cacheStatus;
  if (outcome?.error) attempt.error = outcome.error;
  if (outcome?.facts?.provider_filters) attempt.provider_filters = outcome.facts.provider_filters;
  const hooks = outcome?.hooks ?? hookResultsOf(leaf, undefined);
  if (hooks) attempt.hook_results = hooks;
  ctx.attempts.push(attempt);
}
