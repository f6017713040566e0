/**
 * A target made ready to call: its provider resolved, the policies holding it applied, the
 * request gate's admission taken, and its input side run. A 446 or a refusal here is the
 * target's answer at once, and the upstream is never called.
 */
import type { Evaluation, GuardrailResult } from "../../core/index.js";
import { deniedBody, deniedHeaders, denialOf, GatewayError } from "../errors.js";
import type { RoutingNode } from "../routing/build.js";
import type { PolicyAttacher } from "../policies/attach.js";
import { canonicalTarget } from "../providers/canonical-target.js";
import type { ProviderResolver } from "../providers/resolve.js";
import { failureAnswer } from "./output.js";
import { checkHeaders } from "../gateway-headers.js";
import { attemptOf, hookResultsOf, type JsonOutcome, type Leaf, providerLabel } from "./attempts.js";
import type { PhaseContext, Phases } from "./phases.js";
import type { RequestGate } from "../request-gate.js";
import type { RequestContext } from "./context.js";
import { assertStreamCheckable } from "./stream-coverage.js";

/** What preparing a target needs. */
export interface TargetPreparation {
  providers: ProviderResolver;
  phases: Phases;
  gate?: RequestGate;
  policies?: PolicyAttacher;
}

/**
 * The input side's runs of one request, kept by the pipeline for its walk over targets: fallback
 * targets sharing a list evaluate it once, and each list's asynchronous guardrails start once.
 */
export class InputRuns {
  readonly #sync = new Map<string, Promise<Evaluation | undefined>>();
  readonly #async = new Map<string, Promise<GuardrailResult[]>>();

  /** The evaluation under \`key\`, started by \`run\` the first time it is asked for. */
  sync(key: string, run: () => Promise<Evaluation | undefined>): Promise<Evaluation | undefined> {
    let input = this.#sync.get(key);
    if (!input) {
      input = run();
      this.#sync.set(key, input);
    }
    return input;
  }

  /** Starts a list's asynchronous guardrails unless they were started already. */
  async(key: string, run: () => Promise<GuardrailResult[]>): void {
    if (!this.#async.has(key)) this.#async.set(key, run());
  }

  /** The results of every asynchronous input guardrail started, once all reported. */
  async asyncResults(): Promise<GuardrailResult[]> {
    return (await Promise.all(this.#async.values())).flat();
  }
}

/**
 * The target ready to call (a `Leaf`), or its answer when the input side denied it or a step
 * refused (a `JsonOutcome`, its attempt recorded as ended before the upstream).
 */
export async function prepareTarget(
  deps: TargetPreparation,
  ctx: RequestContext,
  target: RoutingNode,
  started: number,
  inputs: InputRuns,
): Promise<Leaf | JsonOutcome> {
  let leaf: Leaf | undefined;
  let node = target;
  try {
    let body = ctx.body;
    const overrides = node.settings.overrideParams;
    if (Object.keys(overrides).length) body = { ...body, ...overrides };
    const { provider, model } = await deps.providers.resolve({
      settings: node.settings,
      header: ctx.headerProvider,
      model: body.model,
      endpoint: ctx.endpoint,
      caller: ctx.caller,
      scope: { workspaceId: ctx.identity.workspaceId },
    });
    if (model !== undefined) body = { ...body, model };
    // Policies are matched on what this target calls, per target and so per fallback and retry.
    if (deps.policies) {
      const set = await deps.policies.forRequest({
        workspaceId: ctx.identity.workspaceId,
        apiKeyId: ctx.identity.id,
        targets: [canonicalTarget(provider, body.model)],
      });
      node = deps.policies.applyNode(target, set);
    }
    if (ctx.stream) assertStreamCheckable(node.stream, ctx.endpoint.requestType, body);
    deps.phases.assertInputCheckable(ctx.endpoint.requestType, body, [...node.input.sync, ...node.input.async]);
    const admission = await deps.gate?.admit({
      identity: ctx.identity,
      provider,
      model: typeof body.model === "string" ? body.model : undefined,
      requestType: ctx.endpoint.requestType,
    });
    const guarded = node.input.sync.length + node.input.async.length + node.output.sync.length + node.output.async.length > 0;
    const phase: PhaseContext = {
      requestType: ctx.endpoint.requestType,
      metadata: ctx.metadata,
      // The caller's Authorization is a provider credential unless a slug or the mock answers.
      headers: guarded ? checkHeaders(ctx.headers, provider.kind === "mock" || provider.slug !== undefined) : {},
      ...(typeof body.model === "string" && { model: body.model }),
      provider: providerLabel(provider),
      workspaceId: ctx.identity.workspaceId,
    };
    let evaluation: Evaluation | undefined;
    if (node.input.sync.length) {
      const inputKey = `${node.input.key}\0${provider.kind === "http" ? provider.identity : "mock"}\0${phase.model ?? ""}\0${
        Object.keys(overrides).length ? JSON.stringify(overrides) : ""
      }`;
      evaluation = await inputs.sync(inputKey, () => deps.phases.sync("input", node.input.sync, body, undefined, phase));
    }
    leaf = { node, provider, request: (evaluation?.request as Record<string, unknown> | undefined) ?? body, phase };
    if (admission) leaf.admission = admission;
    if (evaluation) leaf.input = evaluation;
    if (node.input.async.length) {
      inputs.async(node.input.key, () => deps.phases.async("input", node.input.async, body, undefined, phase));
    }
    if (evaluation?.status === 446) {
      const hooks = hookResultsOf(leaf, undefined) as NonNullable<ReturnType<typeof hookResultsOf>>;
      const denied: JsonOutcome = {
        kind: "json",
        status: 446,
        body: deniedBody(ctx.endpoint.errorStyle, "input", hooks),
        headers: deniedHeaders(denialOf("input", hooks)),
        leaf,
        hooks,
        error: { code: "hooks_failed", message: "denied by input guardrails" },
      };
      denied.attempts = [attemptOf(node, leaf, 446, started, denied, true)];
      return denied;
    }
    return leaf;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const outcome = failureAnswer(ctx, error, leaf);
    outcome.attempts = [attemptOf(node, leaf, outcome.status, started, outcome, true)];
    return outcome;
  }
}
