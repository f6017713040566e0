/**
 * A target made ready to call: its provider resolved, the policies holding it applied, the
 * request gate's admission taken, and its input side run. A 446 or a refusal here is the
 * target's answer at once, and the upstream is never called.
 */
import type { Evaluation, Guardrail, GuardrailResult } from "../../core/index.js";
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
 * The first run of each kind is kept in fields: a request with one target builds no map.
 */
export class InputRuns {
  #syncKey: string | undefined;
  #syncFirst: Promise<Evaluation | undefined> | undefined;
  #syncMore: Map<string, Promise<Evaluation | undefined>> | undefined;
  #asyncKey: string | undefined;
  #asyncFirst: Promise<GuardrailResult[]> | undefined;
  #asyncMore: Map<string, Promise<GuardrailResult[]>> | undefined;

  /** The evaluation under \`key\`, started by \`run\` the first time it is asked for. */
  sync(key: string, run: () => Promise<Evaluation | undefined>): Promise<Evaluation | undefined> {
    if (this.#syncFirst === undefined) {
      this.#syncKey = key;
      return (this.#syncFirst = run());
    }
    if (key === this.#syncKey) return this.#syncFirst;
    let input = (this.#syncMore ??= new Map()).get(key);
    if (!input) {
      input = run();
      this.#syncMore.set(key, input);
    }
    return input;
  }

  /** Starts a list's asynchronous guardrails unless they were started already. */
  async(key: string, run: () => Promise<GuardrailResult[]>): void {
    if (this.#asyncFirst === undefined) {
      this.#asyncKey = key;
      this.#asyncFirst = run();
    } else if (key !== this.#asyncKey && !this.#asyncMore?.has(key)) {
      (this.#asyncMore ??= new Map()).set(key, run());
    }
  }

  /** The results of every asynchronous input guardrail started, once all reported; none, at once, when none started. */
  asyncResults(): GuardrailResult[] | Promise<GuardrailResult[]> {
    if (this.#asyncFirst === undefined) return [];
    if (!this.#asyncMore) return this.#asyncFirst;
    return Promise.all([this.#asyncFirst, ...this.#asyncMore.values()]).then((lists) => lists.flat());
  }
}

/** Each input list's guardrails, synchronous then asynchronous; lists are made once per config, so this is too. */
const inputLists = new WeakMap<RoutingNode["input"], Guardrail[]>();

function inputGuardrails(input: RoutingNode["input"]): Guardrail[] {
  let all = inputLists.get(input);
  if (!all) {
    all = [...input.sync, ...input.async];
    inputLists.set(input, all);
  }
  return all;
}

/**
 * The key under which targets share an input evaluation: the list, and what the phase reads
 * besides the body (the provider called, the model, the body's overrides).
 */
function inputKey(
  listKey: string,
  provider: string,
  model: string | undefined,
  overrides: Record<string, unknown> | undefined,
): string {
  let key = listKey + "\0" + provider + "\0";
  if (model !== undefined) key += model;
  key += "\0";
  return overrides ? key + JSON.stringify(overrides) : key;
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
    const overridden = Object.keys(overrides).length > 0;
    if (overridden) body = { ...body, ...overrides };
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
    deps.phases.assertInputCheckable(ctx.endpoint.requestType, body, inputGuardrails(node.input));
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
      const run = () => deps.phases.sync("input", node.input.sync, body, undefined, phase);
      // The routing's only target shares its evaluation with no other: no key is needed.
      evaluation = await (target === ctx.routing.root
        ? run()
        : inputs.sync(
            inputKey(
              node.input.key,
              provider.kind === "http" ? provider.identity : "mock",
              phase.model,
              overridden ? overrides : undefined,
            ),
            run,
          ));
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
