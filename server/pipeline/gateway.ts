/**
 * One inference request from plan to answer (docs/architecture.md, "One request"): walk the
 * plan's targets by strategy (single, fallback, loadbalance); for a target, resolve its provider,
 * run the input side (446 answers at once, the upstream never called), call the upstream or the
 * cache or the mock with retries, run the output side, and build the answer with hook_results.
 * Asynchronous guardrails start beside the upstream call and report to the request log only.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyBaseLogger } from "fastify";
import type { Evaluation, GuardrailResult, GuardrailStatus } from "../../core/index.js";
import { deniedBody, deniedHeaders, denialOf, describeError, errorBody, GatewayError, type Refusal } from "../errors.js";
import { FORMATS } from "../formats/index.js";
import { DEFAULT_LOG_BODY_MAX_BYTES } from "../logs/body-cap.js";
import { type AttemptRecord, keepBodies, requestRecord } from "../logs/record.js";
import type { RequestLogSink } from "../logs/sink.js";
import type { Plan, PlanNode } from "../plan/build.js";
import type { PolicyAttacher } from "../policies/attach.js";
import { targetModel } from "../policies/scope.js";
import type { CallFacts, ProviderCall } from "../providers/adapter.js";
import { adapterFor, kindOf } from "../providers/adapters.js";
import { mockBody, mockStream } from "../providers/mock.js";
import { secretOptionValues } from "../providers/options.js";
import type {
  CallerCredentials,
  HeaderProviderSettings,
  HttpProvider,
  ProviderResolver,
  ResolvedProvider,
} from "../providers/resolve.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import type { UpstreamClient } from "../upstream/client.js";
import type { Endpoint } from "./endpoints.js";
import { checkHeaders, HEADER, passedBackHeaders, upstreamHeaders } from "./headers.js";
import {
  appendHookResults,
  discardOutcome,
  hookResultsOf,
  type JsonOutcome,
  type Leaf,
  type Outcome,
  retryStatus,
  type StreamOutcome,
} from "./outcome.js";
import type { PhaseContext, Phases } from "./phases.js";
import type { Admission, RequestPolicy } from "./policy.js";
import { type RelaySummary, StreamRelay } from "./relay.js";
import type { AnswerCache } from "./response-cache.js";
import { parseRetryAfter, type RetryTiming, retryDelay, sleep } from "./retry.js";
import { assertStreamCheckable, regroupsStream } from "./stream-coverage.js";
import { usageOf } from "./usage.js";
import { isObject } from "../../core/internal.js";

/** Everything known about a request before its targets are tried. */
export interface RequestContext {
  id: string;
  started: number;
  endpoint: Endpoint;
  identity: ApiKeyIdentity;
  body: Record<string, unknown>;
  stream: boolean;
  strict: boolean;
  metadata: Record<string, string>;
  headers: IncomingHttpHeaders;
  headerProvider: HeaderProviderSettings;
  caller: CallerCredentials;
  plan: Plan;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  attempts: AttemptRecord[];
  /** Input evaluations by list and target, so fallback targets sharing a list evaluate it once. */
  inputs: Map<string, Promise<Evaluation | undefined>>;
  /** Asynchronous input guardrails started, by list. */
  asyncInputs: Map<string, Promise<GuardrailResult[]>>;
}

/** What a route knows of a request before `Gateway.handle` takes it over; `id` is the HTTP request's own. */
export type RequestFields = Omit<RequestContext, "started" | "attempts" | "inputs" | "asyncInputs">;

/** What a route does with the answer `Gateway.handle` hands it. */
export interface AnswerSender {
  /** A JSON (or raw) answer. */
  json(id: string, outcome: JsonOutcome): void;
  /** A streamed answer: `body` is the relayed stream, which writes the log when it ends. */
  stream(id: string, outcome: StreamOutcome, body: AsyncGenerator<Buffer>): void;
  /** The client left before an answer: 499, to nobody. */
  closed(error: GatewayError): void;
}

/** What the pipeline needs. */
export interface GatewayDeps {
  providers: ProviderResolver;
  phases: Phases;
  upstream: UpstreamClient;
  cache: AnswerCache;
  logSink: RequestLogSink;
  logger: FastifyBaseLogger;
  retryTiming: RetryTiming;
  logBodies: boolean;
  /** Cap of each logged body, bytes of JSON; default 64 KiB. */
  logBodyMaxBytes?: number;
  /** The answer waits for its log record's commit (no record lost in a crash; costs latency). */
  durableLogs?: boolean;
  policy?: RequestPolicy;
  /** Check time a held stream may use, ms (`stream_check_budget_ms`); default DEFAULT_STREAM_CHECK_BUDGET_MS. */
  streamCheckBudgetMs?: number;
  /** Adds the guardrails of the policies holding each target, once its provider and model are resolved. */
  policies?: PolicyAttacher;
}

const SEVERITY: Record<GuardrailStatus, number> = { 200: 0, 246: 1, 446: 2 };

function worst(a: GuardrailStatus, b: GuardrailStatus): GuardrailStatus {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Fallback moves on for the listed codes, or for anything but 2xx when none are listed (docs/spec-notes.md, "The peer gateway"). */
function movesOn(status: number, codes: readonly number[] | undefined): boolean {
  return codes ? codes.includes(status) : !ok(status);
}

function pickWeighted(targets: PlanNode[], random = Math.random): PlanNode {
  const total = targets.reduce((sum, t) => sum + t.weight, 0);
  let point = random() * total;
  for (const target of targets) {
    if (target.weight <= 0) continue;
    point -= target.weight;
    if (point < 0) return target;
  }
  return targets.filter((t) => t.weight > 0).at(-1) as PlanNode;
}

/** The upstream's answer without the provider's secrets: its key, and the options holding secrets. */
function scrub(text: string, provider: HttpProvider): string {
  const secrets = secretOptionValues(provider.name, provider.options);
  if (provider.secret) secrets.push(provider.secret);
  for (const secret of secrets) if (text.includes(secret)) text = text.replaceAll(secret, "[REDACTED]");
  return text;
}

/** A streamed request as asked of the upstream whole. */
function asWhole(request: Record<string, unknown>): Record<string, unknown> {
  const whole = { ...request };
  delete whole.stream;
  delete whole.stream_options;
  return whole;
}

function providerLabel(provider: ResolvedProvider): string {
  return provider.slug ? `@${provider.slug}` : provider.name;
}

/** The error a request log records, if the request ended in one. */
function logError(
  ctx: RequestContext,
  json: JsonOutcome | undefined,
  stream: RelaySummary | undefined,
  failure: Refusal | undefined,
): { code: string; message: string } | undefined {
  if (failure) return { code: failure.code, message: failure.message };
  if (json) return json.error;
  if (stream?.stop?.guardrails.length) {
    return { code: "hooks_failed", message: `stopped by output guardrail ${stream.stop.guardrails.join(", ")}` };
  }
  if (stream?.error !== undefined) {
    const error = stream.error as { code?: string; message?: string };
    return { code: error.code ?? "stream_broken", message: error.message ?? String(stream.error) };
  }
  if (ctx.signal.aborted) return { code: "client_closed", message: "the client closed the connection before the stream ended" };
  return undefined;
}

/** Runs inference requests. */
export class Gateway {
  /** Each target's admission, settled with the answer's usage when the request is logged. */
  readonly #admissions = new WeakMap<Leaf, Admission>();
  /** Log writes still waiting on asynchronous guardrails, so a stop can wait for them. */
  readonly #finishing = new Set<Promise<void>>();

  constructor(private readonly deps: GatewayDeps) {}

  /**
   * One inference request's whole life: its context (with what `prepare` reads from the request:
   * metadata and plan), the walk over the plan's targets, the answer handed to `send`, and the
   * request log once the answer is out. A request refused before any target was tried is logged
   * too, and its error rethrown for the route's error handler.
   */
  async handle(
    fields: RequestFields,
    prepare: () => Promise<Pick<RequestContext, "metadata" | "plan">>,
    send: AnswerSender,
  ): Promise<void> {
    let ctx: RequestContext;
    try {
      // `prepare` may fill in fields it read (and refused on), so they are copied after it ran.
      const prepared = await prepare();
      ctx = this.context({ ...fields, ...prepared });
    } catch (error) {
      const written = this.refused(fields, error instanceof GatewayError ? error : describeError(error, 0));
      if (this.durableLogs) await written;
      throw error;
    }
    let outcome: Outcome;
    try {
      outcome = await this.run(ctx);
    } catch (error) {
      if (!ctx.signal.aborted) throw error;
      // The client left during a retry wait or an upstream call: nobody to answer.
      const closed = new GatewayError(499, "client_closed", "the client closed the connection");
      void this.finish(ctx, undefined, undefined, closed);
      send.closed(closed);
      return;
    }
    if (outcome.kind === "stream") {
      send.stream(ctx.id, outcome, this.relay(ctx, outcome));
      return;
    }
    if (this.durableLogs) {
      // Durable logs: the answer leaves once its record is committed, so an answered request always has one.
      await this.finish(ctx, outcome);
      send.json(ctx.id, outcome);
      return;
    }
    send.json(ctx.id, outcome);
    void this.finish(ctx, outcome);
  }

  /** Logs a request refused before any target was tried; resolves once the record is written. */
  refused(fields: RequestFields, failure: Refusal): Promise<void> {
    return this.finish(this.context(fields), undefined, undefined, failure);
  }

  /** A request context made of `fields` (taken over, not copied). */
  private context(fields: RequestFields): RequestContext {
    const ctx = fields as RequestContext;
    ctx.started = performance.now();
    ctx.attempts = [];
    ctx.inputs = new Map();
    ctx.asyncInputs = new Map();
    return ctx;
  }

  /** Walks the plan and returns the answer to send. */
  private run(ctx: RequestContext): Promise<Outcome> {
    return this.#node(ctx, ctx.plan.root);
  }

  async #node(ctx: RequestContext, node: PlanNode): Promise<Outcome> {
    const targets = node.targets;
    if (!targets) return this.#leaf(ctx, node);
    const strategy = node.strategy ?? { mode: "single" };
    if (strategy.mode === "loadbalance") return this.#node(ctx, pickWeighted(targets));
    if (strategy.mode === "single") return this.#node(ctx, targets[0] as PlanNode);
    let outcome: Outcome | undefined;
    for (const [index, target] of targets.entries()) {
      outcome = await this.#node(ctx, target);
      if (index === targets.length - 1 || !movesOn(outcome.status, strategy.onStatusCodes)) return outcome;
      discardOutcome(outcome);
    }
    return outcome as Outcome;
  }

  async #leaf(ctx: RequestContext, target: PlanNode): Promise<Outcome> {
    let leaf: Leaf | undefined;
    let node = target;
    const started = performance.now();
    try {
      let body = ctx.body;
      const overrides = node.settings.overrideParams;
      if (Object.keys(overrides).length) body = { ...body, ...overrides };
      const { provider, model } = await this.deps.providers.resolve({
        settings: node.settings,
        header: ctx.headerProvider,
        model: body.model,
        endpoint: ctx.endpoint,
        caller: ctx.caller,
        scope: { workspaceId: ctx.identity.workspaceId },
      });
      if (model !== undefined) body = { ...body, model };
      // Policies are matched on what this target calls, per target and so per fallback and retry.
      if (this.deps.policies) {
        const set = await this.deps.policies.forRequest({
          workspaceId: ctx.identity.workspaceId,
          apiKeyId: ctx.identity.id,
          model: targetModel(provider, body.model),
        });
        node = this.deps.policies.applyNode(target, set);
      }
      if (ctx.stream) assertStreamCheckable(node.stream, ctx.endpoint.requestType, body);
      const admission = await this.deps.policy?.admit({
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
        let input = ctx.inputs.get(inputKey);
        if (!input) {
          input = this.deps.phases.sync("input", node.input.sync, body, undefined, phase);
          ctx.inputs.set(inputKey, input);
        }
        evaluation = await input;
      }
      leaf = { node, provider, request: (evaluation?.request as Record<string, unknown> | undefined) ?? body, phase };
      if (admission) this.#admissions.set(leaf, admission);
      if (evaluation) leaf.input = evaluation;
      if (node.input.async.length && !ctx.asyncInputs.has(node.input.key)) {
        ctx.asyncInputs.set(node.input.key, this.deps.phases.async("input", node.input.async, body, undefined, phase));
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
        this.#record(ctx, node, leaf, 446, started, denied, true);
        return denied;
      }
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      const outcome = this.#failure(ctx, error, leaf);
      this.#record(ctx, node, leaf, outcome.status, started, outcome, true);
      return outcome;
    }
    return this.#withRetry(ctx, leaf);
  }

  async #withRetry(ctx: RequestContext, leaf: Leaf): Promise<Outcome> {
    const retry = leaf.node.settings.retry;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const facts: CallFacts = {};
      let outcome: Outcome;
      try {
        outcome = await this.#callOnce(ctx, leaf, attempt, facts);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        outcome = this.#failure(ctx, error, leaf);
      }
      outcome.facts = facts;
      this.#record(ctx, leaf.node, leaf, outcome.status, started, outcome.kind === "json" ? outcome : undefined);
      if (!retry || attempt >= retry.attempts || !retry.onStatusCodes.includes(retryStatus(outcome))) return outcome;
      const delay = retryDelay(attempt, outcome.kind === "json" ? outcome.retryAfterMs : undefined, this.deps.retryTiming);
      if (delay === undefined) return outcome;
      discardOutcome(outcome);
      await sleep(delay, ctx.signal);
    }
  }

  /** One call of a target: the mock, the cache, or the upstream; then the output side. */
  async #callOnce(ctx: RequestContext, leaf: Leaf, attempt: number, facts: CallFacts): Promise<Outcome> {
    const { provider, node } = leaf;
    const endpoint = ctx.endpoint;
    const streaming = ctx.stream && endpoint.requestType !== "embed";
    if (provider.kind === "mock") {
      const mockResponse = node.settings.mockResponse ?? ctx.body.mock_response;
      if (streaming) {
        const source = (async function* () {
          yield* mockStream(endpoint, leaf.request, mockResponse);
        })();
        return this.#streamOutcome(ctx, leaf, {}, source);
      }
      return this.#answer(ctx, leaf, 200, mockBody(endpoint, leaf.request, mockResponse), {});
    }

    // Several choices under a redaction: asked whole, then streamed to the client choice after choice.
    const streamOf = FORMATS[endpoint.format].streamOf;
    const regroup =
      streaming && streamOf && regroupsStream(node.stream, endpoint.requestType, leaf.request) ? streamOf : undefined;
    const request = regroup ? asWhole(leaf.request) : leaf.request;
    const sent = JSON.stringify(request);
    const cacheKey =
      node.settings.cache && !ctx.stream
        ? this.deps.cache.key({
            workspaceId: ctx.identity.workspaceId,
            provider: provider.identity,
            path: endpoint.upstreamPath,
            body: sent,
          })
        : undefined;
    // A retry asks the upstream again: the cached answer is what is being retried.
    if (cacheKey && attempt === 0) {
      const hit = await this.deps.cache.get(cacheKey);
      if (hit) return this.#answer(ctx, leaf, hit.status, JSON.parse(hit.text) as Record<string, unknown>, hit.headers, "HIT");
    }

    const call: ProviderCall = {
      endpoint,
      body: request,
      text: sent,
      stream: streaming && !regroup,
      headers: upstreamHeaders(ctx.headers, provider, streaming && !regroup),
      provider,
      dropParams: node.settings.dropParams === true,
      ...(node.settings.requestTimeoutMs !== undefined && { timeoutMs: node.settings.requestTimeoutMs }),
      signal: ctx.signal,
      facts,
    };
    const response = await adapterFor(kindOf(provider.name), endpoint).send(this.deps.upstream, call);
    const headers = passedBackHeaders(response.headers);
    if (streaming && ok(response.status) && response.contentType.includes("text/event-stream")) {
      return this.#streamOutcome(ctx, leaf, headers, response.stream(), () => response.discard());
    }
    const text = scrub(await response.text(), provider);
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (ok(response.status)) {
      if (!isObject(parsed)) {
        throw new GatewayError(
          502,
          "upstream_invalid_response",
          `the upstream ${providerLabel(provider)} answered ${response.status} with a body that is not a JSON object`,
        );
      }
      if (regroup) {
        // Checked whole first, so each choice's redaction lands in its own choice (a stream's hold
        // maps a redaction by position, and one spanning two choices' seam would move text across
        // them); a deny is a 446 before any byte. The redacted answer then streams through the
        // relay like any held stream, whose checks find nothing left to change.
        const checked = await this.#answer(ctx, leaf, response.status, parsed, headers);
        if (checked.status === 446 || !checked.output) return checked;
        const asked = (leaf.request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
        const events = regroup(endpoint.requestType, asked ? checked.output : { ...checked.output, usage: undefined });
        return this.#streamOutcome(
          ctx,
          leaf,
          headers,
          (async function* () {
            yield* events;
          })(),
        );
      }
      if (cacheKey) this.deps.cache.set(cacheKey, { status: response.status, text, headers }, node.settings.cache?.maxAgeSeconds);
      const outcome = await this.#answer(ctx, leaf, response.status, parsed, headers, cacheKey ? "MISS" : undefined);
      // Nothing changed: the upstream's own bytes go out, with hook_results appended when there are
      // some, so the answer is not serialised a second time.
      if (outcome.body === parsed) outcome.raw = text;
      else if (outcome.output === parsed && outcome.hooks && !Object.hasOwn(parsed, "hook_results")) {
        outcome.raw = appendHookResults(text, parsed, outcome.hooks);
      }
      if (outcome.raw !== undefined) outcome.contentType = "application/json; charset=utf-8";
      return outcome;
    }
    // An upstream error is returned as it is, with the input side's hook_results (docs/spec-notes.md, "The peer gateway").
    const hooks = hookResultsOf(leaf, undefined);
    const outcome: JsonOutcome = { kind: "json", status: response.status, headers, leaf };
    if (hooks) outcome.hooks = hooks;
    if (isObject(parsed)) outcome.body = hooks ? { ...parsed, hook_results: hooks } : parsed;
    else {
      outcome.raw = text;
      outcome.contentType = response.contentType || "text/plain";
    }
    const retryAfter = parseRetryAfter(response.headers["retry-after"]);
    if (retryAfter !== undefined && (response.status === 429 || response.status === 503)) outcome.retryAfterMs = retryAfter;
    return outcome;
  }

  /**
   * A stream's outcome. A held stream is read until its first bytes may leave, so an output deny
   * before then is a 446 (retried and fallen back on like any answer) and an output 246 its status.
   */
  async #streamOutcome(
    ctx: RequestContext,
    leaf: Leaf,
    headers: Record<string, string>,
    source: AsyncIterable<Buffer>,
    discardSource?: () => void,
  ): Promise<Outcome> {
    const relay = new StreamRelay({
      leaf,
      format: ctx.endpoint.format,
      source,
      evaluateOutput: (body) => this.deps.phases.sync("output", leaf.node.output.sync, leaf.request, body, leaf.phase),
      evaluateWindow: (body) =>
        this.deps.phases.sync("output", this.deps.phases.windowGuardrails(leaf.node.output.sync), leaf.request, body, leaf.phase),
      ...(this.deps.streamCheckBudgetMs !== undefined && { checkBudgetMs: this.deps.streamCheckBudgetMs }),
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

  /** Runs the output side on a 2xx body and builds the answer. */
  async #answer(
    ctx: RequestContext,
    leaf: Leaf,
    upstreamStatus: number,
    body: Record<string, unknown>,
    headers: Record<string, string>,
    cacheStatus?: "HIT" | "MISS",
  ): Promise<JsonOutcome> {
    const output = await this.deps.phases.sync("output", leaf.node.output.sync, leaf.request, body, leaf.phase);
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

  #failure(ctx: RequestContext, error: GatewayError, leaf: Leaf | undefined): JsonOutcome {
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

  /** Puts the bodies on the record, capped; a body that cannot be kept leaves a note, never a lost record. */
  #record(
    ctx: RequestContext,
    node: PlanNode,
    leaf: Leaf | undefined,
    status: number,
    started: number,
    outcome?: JsonOutcome,
    beforeUpstream = false,
  ) {
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

  /** The relayed stream of a stream outcome; the log is written when it ends. */
  private relay(ctx: RequestContext, outcome: StreamOutcome): AsyncGenerator<Buffer> {
    return outcome.relay.relay({
      strict: ctx.strict,
      onEnd: (summary) => {
        const written = this.finish(ctx, outcome, summary);
        return this.deps.durableLogs ? written : undefined;
      },
    });
  }

  /**
   * Writes the request log once the answer is out and the asynchronous guardrails reported.
   * Never rejects: a failing guardrail or sink is logged, and the process carries on.
   */
  private finish(ctx: RequestContext, outcome: Outcome | undefined, stream?: RelaySummary, failure?: Refusal): Promise<void> {
    const job = this.#finish(ctx, outcome, stream, failure);
    this.#finishing.add(job);
    void job.finally(() => this.#finishing.delete(job));
    return job;
  }

  /** Whether an answer must wait for its record's commit before it is sent. */
  get durableLogs(): boolean {
    return this.deps.durableLogs === true;
  }

  /** Resolves once every request log begun so far has been handed to the sink. */
  async drain(): Promise<void> {
    while (this.#finishing.size > 0) await Promise.allSettled([...this.#finishing]);
  }

  async #finish(ctx: RequestContext, outcome: Outcome | undefined, stream?: RelaySummary, failure?: Refusal): Promise<void> {
    const ended = performance.now();
    try {
      const leaf = outcome?.leaf;
      const json = outcome?.kind === "json" ? outcome : undefined;
      const before = json?.hooks?.before_request_hooks ?? leaf?.input?.results ?? [];
      const after = json ? (json.hooks?.after_request_hooks ?? []) : (stream?.output?.results ?? []);
      // What asynchronous output guardrails see: the answer sent, or all of a stream that ended well.
      const response = json ? json.output : stream?.error === undefined && stream?.text ? stream.body : undefined;
      const asyncBefore = (await Promise.all(ctx.asyncInputs.values())).flat();
      const asyncAfter =
        leaf && response && leaf.node.output.async.length
          ? await this.deps.phases.async("output", leaf.node.output.async, leaf.request, response, leaf.phase)
          : [];
      const record = requestRecord({
        id: ctx.id,
        started: ctx.started,
        ended,
        workspaceId: ctx.identity.workspaceId,
        apiKeyId: ctx.identity.id,
        route: ctx.endpoint.route,
        requestType: ctx.endpoint.requestType,
        stream: ctx.stream,
        status: outcome?.status ?? failure?.status ?? 0,
        attempts: ctx.attempts,
        hookResults: { before_request_hooks: [...before, ...asyncBefore], after_request_hooks: [...after, ...asyncAfter] },
      });
      if (ctx.plan.configId) record.config_id = ctx.plan.configId;
      if (ctx.plan.inlineGuardrails.length) record.inline_guardrails = ctx.plan.inlineGuardrails;
      if (leaf) record.provider = providerLabel(leaf.provider);
      if (leaf?.phase.model) record.model = leaf.phase.model;
      if (json?.cacheStatus) record.cache_status = json.cacheStatus;
      const error = logError(ctx, json, stream, failure);
      if (error) record.error = error;
      if (stream?.output?.status === 446) record.stream_output_denied = true;
      if (stream?.outputSkipped) record.stream_output_skipped = true;
      if (stream?.stop) record.stream_stop = stream.stop;
      const admission = leaf && this.#admissions.get(leaf);
      if (admission) {
        // A cache hit cost nothing upstream; anything else that answered counts its tokens.
        const hit = outcome?.kind === "json" && outcome.cacheStatus === "HIT";
        const usage =
          response && !hit ? await usageOf(ctx.endpoint.requestType, leaf.request, response, stream?.text) : undefined;
        // Of a long stream passed through only the start was gathered: its estimate stands for the whole.
        if (usage?.estimated && stream?.textShare) usage.output_tokens = Math.round(usage.output_tokens / stream.textShare);
        Object.assign(record, await admission.settle(usage));
      }
      // A stream's output side ran, and its content filter spoke, after its attempt was recorded.
      const lastAttempt = ctx.attempts.at(-1);
      if (stream?.output && lastAttempt?.hook_results) lastAttempt.hook_results.after_request_hooks = stream.output.results;
      const filters = outcome?.facts?.provider_filters;
      if (filters) {
        record.provider_filters = filters;
        if (lastAttempt) lastAttempt.provider_filters = filters;
      }
      if (this.deps.logBodies)
        keepBodies(record, leaf?.request ?? ctx.body, response, this.deps.logBodyMaxBytes ?? DEFAULT_LOG_BODY_MAX_BYTES);
      await this.deps.logSink.write(record, this.deps.durableLogs ? { committed: true } : undefined);
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: ctx.id }, "writing the request log failed");
    }
  }
}
