/**
 * The ways a side's guardrails run: synchronously (awaited; the verdict can change the answer),
 * asynchronously (started beside the upstream call, never awaited by the answer, results for the
 * log only), and whole (both kinds awaited, for the hook routes). All go through the engine, with
 * lists prepared once per config and the service's plugin and judge credentials.
 *
 * Where the phase's LLM-judge checks reach their judges: each provider slug their parameters name
 * (`model: "@slug/model"` or `provider: "@slug"`) resolved, as the gateway resolves a request's,
 * to its wire format, base URL and credential headers. They travel with the phase as the `model`
 * plugin's credentials (`judges`), so a check in a worker thread can call the judge without the
 * server, and only the providers a phase uses leave the server's memory. The client's own
 * credentials never enter: a slug's credential comes from its provider record only.
 */
import type { Engine, Evaluation, EvaluateOptions, Guardrail, GuardrailResult, RequestType, Side } from "../../core/index.js";
import { windowGuardrailsOf } from "../routing/stream-mode.js";
import { assertInputCheckable } from "./input-coverage.js";
import { tagPolicyResults } from "../policies/attach.js";
import { kindOf } from "../providers/catalog.js";
import type { ProviderResolver } from "../providers/resolve.js";
import type { PluginCredentialMap, PluginCredentialSource, Scope } from "../sources/types.js";
import { PhaseCredentials } from "./plugin-credentials.js";

/** What checks may know about the request besides its body. */
export interface PhaseContext {
  requestType: RequestType;
  metadata: Record<string, string>;
  /** Request headers with credentials removed. */
  headers: Record<string, string>;
  model?: string;
  provider?: string;
  /** The workspace acting, whose plugin integrations give checks their credentials. */
  workspaceId?: string;
}

/** Runs guardrail phases for the pipeline. */
export class Phases {
  readonly #credentials: PhaseCredentials;

  constructor(
    private readonly engine: Engine,
    private readonly onAsyncError: (error: unknown) => void,
    pluginCredentials?: PluginCredentialSource,
    /** Resolves the provider slugs LLM-judge checks name. */
    private readonly providers?: ProviderResolver,
  ) {
    this.#credentials = new PhaseCredentials(pluginCredentials);
  }

  /** Forgets the plugin credentials read so far: call when the source's answers may have changed. */
  forgetCredentials(): void {
    this.#credentials.clear();
  }

  /** Window lists by the output list they were made of (plans and policy-applied plans keep their lists). */
  readonly #windows = new WeakMap<readonly Guardrail[], Guardrail[]>();

  /**
   * The guardrails a held stream's windows are checked with, made of the output guardrails the
   * target really runs (policies included): their checks of `window` scope (stream-mode.ts).
   */
  windowGuardrails(sync: readonly Guardrail[]): Guardrail[] {
    let windowed = this.#windows.get(sync);
    if (!windowed) {
      windowed = windowGuardrailsOf(sync, (id) => this.engine.registry.get(id)?.definition);
      this.#windows.set(sync, windowed);
    }
    return windowed;
  }

  /** Evaluates the synchronous guardrails of a side; undefined when there are none. */
  sync(
    side: Side,
    guardrails: Guardrail[],
    request: unknown,
    response: unknown,
    context: PhaseContext,
  ): Promise<Evaluation | undefined> {
    if (!guardrails.length) return Promise.resolve(undefined);
    return this.#promised(side, guardrails, request, response, context);
  }

  /**
   * Starts the asynchronous guardrails of a side after the current I/O turn, so they run beside
   * the upstream call rather than before it. Never rejects: a failure is reported and yields no
   * results, and nothing it does reaches the client's answer.
   */
  async(
    side: Side,
    guardrails: Guardrail[],
    request: unknown,
    response: unknown,
    context: PhaseContext,
  ): Promise<GuardrailResult[]> {
    if (!guardrails.length) return Promise.resolve([]);
    return new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#evaluate(side, guardrails, request, response, context))
      .then(
        (evaluation) => evaluation.asyncResults,
        (error: unknown) => {
          this.onAsyncError(error);
          return [];
        },
      );
  }

  /**
   * Evaluates every guardrail of a list, synchronous and asynchronous, and waits for all: the hook
   * backend's phase, where there is no upstream call for asynchronous guardrails to run beside.
   */
  whole(side: Side, guardrails: Guardrail[], request: unknown, response: unknown, context: PhaseContext): Promise<Evaluation> {
    if (side === "input") this.assertInputCheckable(context.requestType, request, guardrails);
    return this.#promised(side, guardrails, request, response, context);
  }

  /** A phase as one promise: one that ran without waiting is wrapped once here, a throw becomes a rejection. */
  #promised(
    side: Side,
    guardrails: Guardrail[],
    request: unknown,
    response: unknown,
    context: PhaseContext,
  ): Promise<Evaluation> {
    try {
      const evaluation = this.#evaluate(side, guardrails, request, response, context);
      return evaluation instanceof Promise ? evaluation : Promise.resolve(evaluation);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Throws a 400 `input_not_checkable` when the input is token ids that these input guardrails would read. */
  assertInputCheckable(requestType: RequestType, request: unknown, guardrails: readonly Guardrail[]): void {
    if (guardrails.length)
      assertInputCheckable(requestType, request, guardrails, (id) => this.engine.registry.get(id)?.definition);
  }

  /**
   * One phase through the engine, with the credentials the service holds for its plugins and its
   * judges: its evaluation as a value when nothing waited (the credentials were held, no judge is
   * looked up, every check answered at once), else a promise of it.
   */
  #evaluate(
    side: Side,
    guardrails: Guardrail[],
    request: unknown,
    response: unknown,
    context: PhaseContext,
  ): Evaluation | Promise<Evaluation> {
    const credentials = this.#credentials.forPhase(context.workspaceId, guardrails);
    // Most lists name no judge: no scope object, no promise and no turn of the microtask queue for them.
    if (namesJudges(this.providers, guardrails)) {
      const scope = context.workspaceId === undefined ? {} : { workspaceId: context.workspaceId };
      return Promise.resolve(credentials)
        .then((held) => withJudgeEndpoints(this.providers, scope, guardrails, held))
        .then((all) => this.#run(side, guardrails, request, response, context, all));
    }
    if (credentials instanceof Promise)
      return credentials.then((held) => this.#run(side, guardrails, request, response, context, held));
    return this.#run(side, guardrails, request, response, context, credentials);
  }

  /** The engine's evaluation of a phase whose credentials are known, its policy results tagged. */
  #run(
    side: Side,
    guardrails: Guardrail[],
    request: unknown,
    response: unknown,
    context: PhaseContext,
    credentials: PluginCredentialMap | undefined,
  ): Evaluation | Promise<Evaluation> {
    // Assigned, not spread: every phase builds one, and each spread is an object of its own.
    const options: EvaluateOptions = {
      side,
      prepared: guardrails,
      requestType: context.requestType,
      request,
      metadata: context.metadata,
      headers: context.headers,
    };
    if (side === "output") options.response = response;
    if (context.model !== undefined) options.model = context.model;
    if (context.provider !== undefined) options.provider = context.provider;
    if (credentials) options.credentials = credentials;
    const evaluation = this.engine.evaluateNow(options);
    if (evaluation instanceof Promise) return evaluation.then((ran) => tagged(guardrails, ran));
    return tagged(guardrails, evaluation);
  }
}

/** The evaluation with its policy guardrails' results tagged with their policy. */
function tagged(guardrails: readonly Guardrail[], evaluation: Evaluation): Evaluation {
  tagPolicyResults(guardrails, evaluation.results);
  tagPolicyResults(guardrails, evaluation.asyncResults);
  return evaluation;
}

/** The check whose parameters name judges, and the plugin whose credentials carry them. */
const JUDGE_CHECK = "model.llmJudge";
const JUDGE_PLUGIN = "model";
/** A check that may escalate to a judge: its `escalate.llmJudge` names one as the judge check does. */
const ESCALATING_CHECK = "model.promptInjection";

/** A judge endpoint as the check reads it (plugins/model/shared/judge-wire.ts). */
interface JudgeEndpoint {
  format: "openai" | "anthropic";
  base_url: string;
  headers: Record<string, string>;
}

/** Provider slugs named by a list's judge checks; lists are prepared once per config, so this is worked out once. */
const slugsOfList = new WeakMap<readonly Guardrail[], readonly string[]>();

function slugOf(value: unknown, withModel: boolean): string | undefined {
  if (typeof value !== "string" || !value.startsWith("@")) return undefined;
  const end = withModel ? value.indexOf("/") : value.length;
  return end > 1 ? value.slice(1, end) : undefined;
}

function judgeSlugs(guardrails: readonly Guardrail[]): readonly string[] {
  let slugs = slugsOfList.get(guardrails);
  if (!slugs) {
    const found = new Set<string>();
    for (const guardrail of guardrails) {
      for (const check of guardrail.checks) {
        if (!check.enabled) continue;
        const named =
          check.id === JUDGE_CHECK
            ? check.parameters
            : check.id === ESCALATING_CHECK
              ? ((check.parameters.escalate as { llmJudge?: Record<string, unknown> } | undefined)?.llmJudge ?? {})
              : {};
        const slug = slugOf(named.model, true) ?? slugOf(named.provider, false);
        if (slug) found.add(slug);
      }
    }
    slugs = [...found];
    slugsOfList.set(guardrails, slugs);
  }
  return slugs;
}

/** Whether a list's judge checks name providers whose endpoints must be looked up; worked out once per list. */
function namesJudges(providers: ProviderResolver | undefined, guardrails: readonly Guardrail[]): boolean {
  return providers !== undefined && judgeSlugs(guardrails).length > 0;
}

/**
 * The phase's credentials with the judge endpoints its judge checks need added under the `model`
 * plugin; unchanged when no judge check names a provider defined in the scope.
 */
async function withJudgeEndpoints(
  providers: ProviderResolver | undefined,
  scope: Scope,
  guardrails: readonly Guardrail[],
  credentials: PluginCredentialMap | undefined,
): Promise<PluginCredentialMap | undefined> {
  const slugs = providers ? judgeSlugs(guardrails) : [];
  if (!providers || slugs.length === 0) return credentials;
  const judges: Record<string, JudgeEndpoint> = {};
  for (const slug of slugs) {
    const provider = await providers.bySlug(slug, scope);
    // The mock answers requests, not judgements, and the judge speaks the OpenAI or Anthropic API
    // at a base URL: a kind that builds its URLs (Azure) or has a format of its own (Bedrock)
    // is not one. The check reports the missing endpoint.
    if (provider?.kind !== "http" || !provider.format || provider.format === "responses" || kindOf(provider.name).passthrough)
      continue;
    judges[slug] = { format: provider.format, base_url: provider.baseUrl, headers: provider.headers };
  }
  if (Object.keys(judges).length === 0) return credentials;
  return { ...credentials, [JUDGE_PLUGIN]: { ...credentials?.[JUDGE_PLUGIN], judges } };
}
