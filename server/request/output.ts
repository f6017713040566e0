/**
 * A target's answer once the upstream (or the cache, or the mock) spoke: the output side run on a
 * JSON body, a stream opened through the relay, or a gateway error in the format's envelope. Each
 * carries the target's hook_results and the status the guardrails decided.
 */
import type { GuardrailStatus } from "../../core/index.js";
import { deniedBody, deniedHeaders, denialOf, errorBody, type GatewayError } from "../errors.js";
import { HEADER } from "../gateway-headers.js";
import { hookResultsOf, type JsonOutcome, type Leaf, type Outcome, type StreamOutcome } from "./attempts.js";
import type { Phases } from "./phases.js";
import { StreamEnforcer } from "./stream-enforcer.js";
import type { RequestContext } from "./context.js";

const SEVERITY: Record<GuardrailStatus, number> = { 200: 0, 246: 1, 446: 2 };

function worst(a: GuardrailStatus, b: GuardrailStatus): GuardrailStatus {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

/** Builds a target's answers: the output side's verdict on JSON bodies and opened streams. */
export class Answers {
  constructor(
    private readonly phases: Phases,
    /** Check time a held stream may use, ms (`stream_check_budget_ms`); the relay's default when undefined. */
    private readonly streamCheckBudgetMs?: number,
  ) {}

  /** Runs the output side on a 2xx body and builds the answer. */
  async json(
    ctx: RequestContext,
    leaf: Leaf,
    upstreamStatus: number,
    body: Record<string, unknown>,
    headers: Record<string, string>,
    cacheStatus?: "HIT" | "MISS",
  ): Promise<JsonOutcome> {
    const output = await this.phases.sync("output", leaf.node.output.sync, leaf.request, body, leaf.phase);
    const hooks = hookResultsOf(leaf, output);
    const answerHeaders = cacheStatus ? { ...headers, [HEADER.cacheStatus]: cacheStatus } : headers;
    const outcome: JsonOutcome = { kind: "json", status: upstreamStatus, headers: answerHeaders, leaf };
    if (hooks) outcome.hooks = hooks;
    if (cacheStatus) outcome.cacheStatus = cacheStatus;
    if (output) outcome.outputStatus = output.status;
    if (output?.status === 446 && hooks) {
      outcome.status = 446;
      outcome.body = deniedBody(ctx.endpoint.errorStyle, "output", hooks);
      outcome.headers = { ...answerHeaders, ...deniedHeaders(denialOf("output", hooks)) };
      outcome.error = { code: "hooks_failed", message: "denied by output guardrails" };
      return outcome;
    }
    const response = (output?.response as Record<string, unknown> | undefined) ?? body;
    const status = worst(leaf.input?.status ?? 200, output?.status ?? 200);
    // 246 only turns an upstream success into 246 (docs/spec-notes.md, "The peer gateway").
    if (status === 246) outcome.status = 246;
    outcome.output = response;
    outcome.body = hooks ? { ...response, hook_results: hooks } : response;
    return outcome;
  }

  /**
   * A stream's outcome. A held stream is read until its first bytes may leave, so an output deny
   * before then is a 446 (retried and fallen back on like any answer) and an output 246 its status.
   */
  async stream(
    ctx: RequestContext,
    leaf: Leaf,
    headers: Record<string, string>,
    source: AsyncIterable<Buffer>,
    discardSource?: () => void,
  ): Promise<Outcome> {
    const relay = new StreamEnforcer({
      leaf,
      format: ctx.endpoint.format,
      source,
      phases: this.phases,
      ...(this.streamCheckBudgetMs !== undefined && { checkBudgetMs: this.streamCheckBudgetMs }),
    });
    const discard = () => {
      void relay.discard();
      discardSource?.();
    };
    let opening;
    try {
      opening = await relay.open();
    } catch (error) {
      discardSource?.();
      throw error;
    }
    if (opening.kind === "denied") {
      discardSource?.();
      const hooks = hookResultsOf(leaf, opening.output) as NonNullable<ReturnType<typeof hookResultsOf>>;
      return {
        kind: "json",
        status: 446,
        body: deniedBody(ctx.endpoint.errorStyle, "output", hooks),
        headers: deniedHeaders(denialOf("output", hooks)),
        leaf,
        hooks,
        outputStatus: 446,
        error: { code: "hooks_failed", message: "denied by output guardrails" },
      };
    }
    // Input 246 starts the stream with 246 (spec §6), and so does an output 246 decided before the first byte.
    const status = worst(leaf.input?.status ?? 200, opening.outputStatus ?? 200) === 246 ? 246 : 200;
    const outcome: StreamOutcome = { kind: "stream", status, headers, relay, discard, leaf };
    if (opening.outputStatus) outcome.outputStatus = opening.outputStatus;
    return outcome;
  }
}

/** A gateway error as the answer of a target, in the endpoint's error envelope with the input side's hook_results. */
export function failureAnswer(ctx: RequestContext, error: GatewayError, leaf: Leaf | undefined): JsonOutcome {
  const hooks = hookResultsOf(leaf, undefined);
  const outcome: JsonOutcome = {
    kind: "json",
    status: error.status,
    body: errorBody(ctx.endpoint.errorStyle, error.status, error.code, error.message, hooks ? { hookResults: hooks } : {}),
    // A refusal may say when to come back (retry-after on a rate limit).
    headers: { ...((error as { headers?: Record<string, string> }).headers ?? {}) },
    error: { code: error.code, message: error.message },
  };
  if (leaf) outcome.leaf = leaf;
  if (hooks) outcome.hooks = hooks;
  return outcome;
}
