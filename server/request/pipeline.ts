/**
 * The request pipeline (docs/architecture.md, "One request"), every surface's, as lists of stage
 * values (`stages.ts`) made once and walked per request. An inference request: open (`open.ts`),
 * targets (the routing's targets walked by strategy: single, fallback, loadbalance), record. Each
 * target tried: prepare (`target.ts`: policies, admit, input side), call (`target-call.ts`: retry,
 * mock, cache, upstream, each answer through the output side of `output.ts`). A hook call, opened
 * by `hook-open.ts`: phases (run whole, no target), record. Each stage returns what it produced;
 * the record is built here, once, when the answer is out (or the stream's end, awaited here) and
 * the asynchronous guardrails reported.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Evaluation } from "../../core/index.js";
import { describeError } from "../describe-error.js";
import { GatewayError, type Refusal } from "../errors.js";
import { DEFAULT_LOG_BODY_MAX_BYTES } from "../logs/body-cap.js";
import { type AttemptRecord, buildRecord, type RecordOrigin, sideResults } from "../logs/record.js";
import type { RequestLogSink } from "../logs/sink.js";
import type { RoutingNode } from "../routing/build.js";
import type { RoutingResolver } from "../routing/resolver.js";
import { movesOn, pickWeighted } from "../routing/strategy.js";
import type { PolicyAttacher } from "../policies/attach.js";
import type { ProviderResolver } from "../providers/resolve.js";
import type { Conversations } from "../providers/conversations.js";
import { translationOf } from "../providers/send.js";
import { kindOf } from "../providers/catalog.js";
import type { UpstreamClient } from "../upstream/client.js";
import { Answers } from "./output.js";
import { Abandoned, discardOutcome, type JsonOutcome, ok, type Outcome, recordFacts, type StreamOutcome } from "./attempts.js";
import type { Phases } from "./phases.js";
import type { ApiKeyIdentity } from "../sources/types.js";
import type { RequestGate } from "../request-gate.js";
import { InferenceIntake, type IncomingRequest } from "./open.js";
import { StageList } from "./stages.js";
import { InputRuns, prepareTarget, type TargetPreparation } from "./target.js";
import type { RelaySummary } from "./stream-enforcer.js";
import type { HookContext, HookOrigin } from "./hook-open.js";
import type { RequestContext } from "./context.js";
import type { Endpoint } from "../formats/endpoints.js";
import type { AnswerCache } from "./response-cache.js";
import type { RetryTiming } from "./retry.js";
import { type Dispatch, targetCallStack, type TargetCall } from "./target-call.js";
import { estimatedUsage, reportedUsage } from "./usage.js";

export type { RequestContext } from "./context.js";

/** A streamed answer to send: its status and headers, and the relayed stream, which writes the log when it ends. */
export interface StreamDelivery {
  kind: "stream";
  status: number;
  headers: Record<string, string>;
  body: AsyncGenerator<Buffer>;
}

/** The client left before an answer: a 499, to nobody. */
export interface ClosedDelivery {
  kind: "closed";
  error: GatewayError;
}

/** What `Pipeline.handle` gives the route to send: a JSON (or raw) answer, a stream, or nothing. */
export type Delivery = JsonOutcome | StreamDelivery | ClosedDelivery;

/** A hook call made ready by intake (its side's guardrails and what they read), with where it came from. */
export interface HookRun extends Omit<HookContext, "warnings" | "origin"> {
  id: string;
  /** When the route began, from `performance.now()`. */
  started: number;
  route: string;
  identity: ApiKeyIdentity;
  origin: HookOrigin & { tryIt?: boolean };
}

/** How a request ended, as the pipeline hands it to the record: each stage's product, returned to it. */
interface Ending {
  /** The answer sent, when a target gave one. */
  outcome?: Outcome;
  /** How a streamed answer ended. */
  stream?: RelaySummary;
  /** The refusal answered instead, before or without a target. */
  failure?: Refusal;
  /** Every attempt at a target, oldest first. */
  attempts: AttemptRecord[];
  /** The input side's runs, whose asynchronous results the record waits for. */
  inputs?: InputRuns;
}

/** What the route hands the pipeline: the request opened, and its body as parsed. */
interface Opened {
  ctx: RequestContext;
  body: unknown;
}

/** What the targets stage produced: the answer, or the client gone before one. */
type Walked =
  | { ctx: RequestContext; inputs: InputRuns; outcome: Outcome }
  | { ctx: RequestContext; inputs: InputRuns; closed: GatewayError; attempts: AttemptRecord[] };

/** One target to try, as the walk hands it to the target's stages. */
interface TargetStart {
  ctx: RequestContext;
  node: RoutingNode;
  inputs: InputRuns;
}

/** What the pipeline needs. */
export interface PipelineDeps {
  /** Turns a request's config into its routing, for the open stage. */
  routing: RoutingResolver;
  providers: ProviderResolver;
  phases: Phases;
  upstream: UpstreamClient;
  cache: AnswerCache;
  logSink: RequestLogSink;
  logger: FastifyBaseLogger;
  retryTiming: RetryTiming;
  /**
   * Whether bodies go to the log: always, never, or as the request's workspace says. Asked before
   * the bodies are capped, so a workspace that keeps none never has them serialised.
   */
  logBodies: boolean | ((workspaceId: string) => Promise<boolean>);
  /** Cap of each logged body, bytes of JSON; default 64 KiB. */
  logBodyMaxBytes?: number;
  /** The answer waits for its log record's commit (no record lost in a crash; costs latency). */
  durableLogs?: boolean;
  gate?: RequestGate;
  /** Check time a held stream may use, ms (`stream_check_budget_ms`); default DEFAULT_STREAM_CHECK_BUDGET_MS. */
  streamCheckBudgetMs?: number;
  /** Adds the guardrails of the policies holding each target, once its provider and model are resolved. */
  policies?: PolicyAttacher;
  /** Stored Responses conversations of providers reached through chat (`previous_response_id`, `/v1/responses/{id}`). */
  conversations?: Conversations;
}

/** Runs inference requests. */
export class Pipeline {
  /** Log writes begun and not yet handed to the sink (they wait on asynchronous guardrails), so a stop can wait for them. */
  #writing = 0;
  /** What `drain` waits on, resolved when the last write in progress is done. */
  #drained: Array<() => void> = [];

  /** What preparing a target needs, taken from the deps once. */
  readonly #preparation: TargetPreparation;
  /** The interceptor stack every target call goes through, composed once. */
  readonly #call: Dispatch;
  readonly #intake: InferenceIntake;

  /** An inference request's stages: from the opened request to the answer handed back. */
  readonly #request: StageList<Opened, Delivery>;
  /** Each target's stages, run for every target the walk tries. */
  readonly #target: StageList<TargetStart, Outcome>;
  /** A hook call's stages: no target. */
  readonly #hook: StageList<HookRun, Evaluation>;

  constructor(private readonly deps: PipelineDeps) {
    this.#preparation = { providers: deps.providers, phases: deps.phases, gate: deps.gate, policies: deps.policies };
    this.#call = targetCallStack({
      answers: new Answers(deps.phases, deps.streamCheckBudgetMs),
      upstream: deps.upstream,
      cache: deps.cache,
      retryTiming: deps.retryTiming,
      ...(deps.conversations && { conversations: deps.conversations }),
    });
    this.#intake = new InferenceIntake(deps.routing);
    this.#request = StageList.of<Opened>()
      .then({ name: "open", run: (opened) => this.#open(opened) })
      .then({ name: "targets", run: (ctx) => this.#walk(ctx) })
      .then({ name: "record", run: (walked) => this.#answer(walked) });
    this.#target = StageList.of<TargetStart>()
      .then({ name: "prepare", run: (start) => this.#prepare(start) })
      .then({ name: "call", run: (prepared) => ("kind" in prepared ? prepared : this.#call(prepared)) });
    this.#hook = StageList.of<HookRun>()
      .then({ name: "phases", run: (run) => this.#phases(run) })
      .then({ name: "record", run: (evaluated) => this.#recordHook(evaluated.run, evaluated.evaluation) });
  }

  /** The names of each list's stages, in the order they run (docs/architecture.md, "One request"). */
  get stages(): { request: readonly string[]; target: readonly string[]; hook: readonly string[] } {
    return { request: this.#request.names, target: this.#target.names, hook: this.#hook.names };
  }

  /** The context of a request with nothing read that could refuse it, so any refusal has a record. */
  open(endpoint: Endpoint, request: IncomingRequest, identity: ApiKeyIdentity, signal: AbortSignal): RequestContext {
    return this.#intake.open(endpoint, request, identity, signal);
  }

  /**
   * One inference request's life from its opened context and body to its answer: its stages
   * walked, the answer handed back to send, and the request log once the answer is out. With
   * durable logs a JSON answer (or a refusal, thrown on) is handed back once its record is committed.
   */
  handle(opened: RequestContext, body: unknown): Promise<Delivery> {
    return this.#request.run({ ctx: opened, body });
  }

  // The stages below answer at once where they can and chain on a promise where they must, rather
  // than each being an async function: the walk is paid on every request (docs/performance.md).

  /** The open stage: the request read (body shape, gateway headers, routing, metadata); a refusal is recorded and thrown on. */
  #open({ ctx, body }: Opened): RequestContext | Promise<RequestContext> {
    let read: RequestContext | Promise<RequestContext>;
    try {
      read = this.#intake.read(ctx, body);
    } catch (error) {
      return this.refuse(ctx, error);
    }
    return read instanceof Promise ? read.catch((error: unknown) => this.refuse(ctx, error)) : read;
  }

  /** The targets stage: the routing's targets walked by strategy to an answer, or the client gone. */
  #walk(ctx: RequestContext): Walked | Promise<Walked> {
    const inputs = new InputRuns();
    const gone = (error: unknown): Walked => {
      if (!ctx.signal.aborted) throw error instanceof Abandoned ? error.cause : error;
      // The client left during a retry wait or an upstream call: nobody to answer.
      const closed = new GatewayError("client_closed", "the client closed the connection");
      return { ctx, inputs, closed, attempts: error instanceof Abandoned ? error.attempts : [] };
    };
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = this.#node(ctx, ctx.routing.root, inputs);
    } catch (error) {
      return gone(error);
    }
    return outcome instanceof Promise
      ? outcome.then((answer): Walked => ({ ctx, inputs, outcome: answer }), gone)
      : { ctx, inputs, outcome };
  }

  /** The record stage: the answer handed back, its record written once it is out (a stream's once it ended). */
  #answer(walked: Walked): Delivery | Promise<Delivery> {
    const { ctx, inputs } = walked;
    if ("closed" in walked) {
      void this.finish(ctx, { failure: walked.closed, attempts: walked.attempts, inputs });
      return { kind: "closed", error: walked.closed };
    }
    const { outcome } = walked;
    if (outcome.kind === "stream") {
      return { kind: "stream", status: outcome.status, headers: outcome.headers, body: this.#streamed(ctx, outcome, inputs) };
    }
    // Kept before the answer leaves: the client may name it as previous_response_id at once.
    const kept = this.#keepResponse(ctx, outcome, outcome.output);
    return kept ? kept.then(() => this.#recorded(ctx, outcome, inputs)) : this.#recorded(ctx, outcome, inputs);
  }

  /** A JSON answer, handed back once its record is begun (committed, with durable logs). */
  #recorded(ctx: RequestContext, outcome: JsonOutcome, inputs: InputRuns): JsonOutcome | Promise<JsonOutcome> {
    const written = this.finish(ctx, { outcome, attempts: outcome.attempts ?? [], inputs });
    // Durable logs: the answer leaves once its record is committed, so an answered request always has one.
    return this.durableLogs ? written.then(() => outcome) : outcome;
  }

  /**
   * Records a request that intake refused, before any target was tried (waiting for the commit
   * with durable logs), then throws its error on for the route's error handler.
   */
  async refuse(ctx: RequestContext, error: unknown): Promise<never> {
    const written = this.refused(ctx, error instanceof GatewayError ? error : describeError(error, 0));
    if (this.durableLogs) await written;
    throw error;
  }

  /** Logs a request refused before any target was tried; resolves once the record is written. */
  refused(ctx: RequestContext, failure: Refusal): Promise<void> {
    return this.finish(ctx, { failure, attempts: [] });
  }

  /**
   * One hook call: the side's guardrails evaluated whole (no target to run beside), and its record
   * written like an inference request's; with durable logs the evaluation is handed back once the
   * record is committed.
   */
  evaluate(run: HookRun): Promise<Evaluation> {
    return this.#hook.run(run);
  }

  /** The hook call's phases stage: its side's guardrails evaluated whole. */
  #phases(run: HookRun): Promise<{ run: HookRun; evaluation: Evaluation }> {
    return this.deps.phases
      .whole(run.side, run.guardrails, run.request, run.response, run.phase)
      .then((evaluation) => ({ run, evaluation }));
  }

  /** The hook call's record stage: the evaluation handed back once its record is begun (committed, with durable logs). */
  #recordHook(run: HookRun, evaluation: Evaluation): Evaluation | Promise<Evaluation> {
    const written = this.#track(this.#writeHook(run, evaluation));
    return this.durableLogs ? written.then(() => evaluation) : evaluation;
  }

  async #writeHook(run: HookRun, evaluation: Evaluation): Promise<void> {
    const { identity, origin } = run;
    const recordOrigin: RecordOrigin = {
      workspaceId: identity.workspaceId,
      apiKeyId: identity.id,
      route: run.route,
      requestType: run.requestType,
      stream: false,
      ...(origin.configId && { configId: origin.configId }),
      inlineGuardrails: origin.inline,
      ...(origin.tryIt && { tryIt: true }),
    };
    try {
      const record = buildRecord({
        id: run.id,
        started: run.started,
        origin: recordOrigin,
        status: evaluation.status,
        hookResults: sideResults(run.side, [...evaluation.results, ...evaluation.asyncResults]),
      });
      await this.deps.logSink.write(record, this.deps.durableLogs ? { committed: true } : undefined);
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: run.id }, "writing the request log failed");
    }
  }

  /**
   * Walks a routing node's targets by strategy and returns the answer to send, carrying every attempt
   * made on the way (a fallback's earlier targets included).
   */
  #node(ctx: RequestContext, node: RoutingNode, inputs: InputRuns): Outcome | Promise<Outcome> {
    const targets = node.targets;
    if (!targets) return this.#target.walk({ ctx, node, inputs });
    const strategy = node.strategy ?? { mode: "single" };
    if (strategy.mode === "loadbalance") return this.#node(ctx, pickWeighted(targets), inputs);
    if (strategy.mode === "single") return this.#node(ctx, targets[0] as RoutingNode, inputs);
    return this.#fallback(ctx, targets, strategy.onStatusCodes, inputs);
  }

  /** A fallback node: its targets tried in order until one answers with a status that does not move on. */
  async #fallback(
    ctx: RequestContext,
    targets: RoutingNode[],
    onStatusCodes: readonly number[] | undefined,
    inputs: InputRuns,
  ): Promise<Outcome> {
    const tried: AttemptRecord[] = [];
    for (const [index, target] of targets.entries()) {
      let outcome: Outcome;
      try {
        outcome = await this.#node(ctx, target, inputs);
      } catch (error) {
        throw error instanceof Abandoned ? new Abandoned(error.cause, [...tried, ...error.attempts]) : error;
      }
      if (index === targets.length - 1 || !movesOn(outcome.status, onStatusCodes)) {
        if (tried.length) outcome.attempts = [...tried, ...(outcome.attempts ?? [])];
        return outcome;
      }
      tried.push(...(outcome.attempts ?? []));
      discardOutcome(outcome);
    }
    throw new Error("a fallback node without targets");
  }

  /** The prepare stage: the target made ready to call, or its answer when an input deny or a refusal came first. */
  #prepare({ ctx, node, inputs }: TargetStart): Promise<TargetCall | Outcome> {
    return prepareTarget(this.#preparation, ctx, node, performance.now(), inputs).then((prepared) =>
      "kind" in prepared ? prepared : { ctx, leaf: prepared, attempt: 0, facts: {} },
    );
  }

  /**
   * The relayed stream of a stream outcome. When its bytes have ended the pipeline awaits how the
   * stream ended and writes the record from it; with durable logs the stream's end waits for the commit.
   */
  async *#streamed(ctx: RequestContext, outcome: StreamOutcome, inputs: InputRuns): AsyncGenerator<Buffer> {
    try {
      yield* outcome.relay.relay({ strict: ctx.strict });
    } finally {
      const stream = await outcome.relay.ended;
      // Kept before the record: the client may name it as previous_response_id once the stream ends.
      if (stream.error === undefined && !stream.stop) await this.#keepResponse(ctx, outcome, stream.body);
      const written = this.finish(ctx, { outcome, stream, attempts: outcome.attempts ?? [], inputs });
      if (this.durableLogs) await written;
    }
  }

  /**
   * Writes the request log once the answer is out and the asynchronous guardrails reported.
   * Never rejects: a failing guardrail or sink is logged, and the process carries on.
   */
  private finish(ctx: RequestContext, ending: Ending): Promise<void> {
    return this.#track(this.#finish(ctx, ending));
  }

  /** Keeps a record's writing in sight until it is done, so a stop can wait for it; `job` never rejects. */
  #track(job: Promise<void>): Promise<void> {
    this.#writing++;
    void job.then(this.#written);
    return job;
  }

  /** One write in progress done: when it was the last, whoever drains is told. */
  readonly #written = (): void => {
    if (--this.#writing > 0) return;
    for (const resolve of this.#drained.splice(0)) resolve();
  };

  /**
   * Stores a Responses answer a provider reached through chat gave, as the client received it
   * (conversations.ts); undefined, with nothing to wait for, for every other answer.
   */
  #keepResponse(ctx: RequestContext, outcome: Outcome, response: unknown): Promise<void> | undefined {
    const { conversations } = this.deps;
    const leaf = outcome.leaf;
    if (!conversations || !leaf || !ok(outcome.status) || leaf.provider.kind !== "http") return;
    if (ctx.endpoint.route !== "/v1/responses" || translationOf(kindOf(leaf.provider.name), ctx.endpoint) !== "chat") return;
    return conversations.keep(ctx.identity.workspaceId, leaf.request, response).catch((error: unknown) => {
      this.deps.logger.error({ err: error, requestId: ctx.id }, "storing the response failed");
    });
  }

  /** Whether an answer must wait for its record's commit before it is sent. */
  get durableLogs(): boolean {
    return this.deps.durableLogs === true;
  }

  /** Resolves once every request log begun so far has been handed to the sink. */
  drain(): Promise<void> {
    if (this.#writing === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Gathers what finishes after the answer (asynchronous guardrails, usage and the admission's
   * settlement) into the request's facts, and hands the record built from them to the sink.
   */
  async #finish(ctx: RequestContext, ending: Ending): Promise<void> {
    const ended = performance.now();
    const { outcome, stream, failure } = ending;
    try {
      const facts = recordFacts(ctx, outcome, stream, failure, ended, ending.attempts);
      const leaf = outcome?.leaf;
      const json = outcome?.kind === "json" ? outcome : undefined;
      // What asynchronous output guardrails see: the answer sent, or all of a stream that ended well.
      const response = json ? json.output : stream?.error === undefined && stream?.text ? stream.body : undefined;
      const started = ending.inputs?.asyncResults() ?? [];
      const asyncBefore = started instanceof Promise ? await started : started;
      const asyncAfter =
        leaf && response && leaf.node.output.async.length
          ? await this.deps.phases.async("output", leaf.node.output.async, leaf.request, response, leaf.phase)
          : [];
      facts.asyncResults = { before_request_hooks: asyncBefore, after_request_hooks: asyncAfter };
      const admission = leaf?.admission;
      if (admission) {
        // A cache hit cost nothing upstream; anything else that answered counts its tokens.
        const usage = response && json?.cacheStatus !== "HIT" ? this.#usage(ctx, leaf.request, response, stream) : undefined;
        facts.settled = await admission.settle(usage instanceof Promise ? await usage : usage);
      }
      const logBodies = this.deps.logBodies;
      if (typeof logBodies === "function" ? await logBodies(ctx.identity.workspaceId) : logBodies) {
        const maxBytes = this.deps.logBodyMaxBytes ?? DEFAULT_LOG_BODY_MAX_BYTES;
        facts.bodies = { request: leaf?.request ?? ctx.body, response, maxBytes };
      }
      await this.deps.logSink.write(buildRecord(facts), this.deps.durableLogs ? { committed: true } : undefined);
    } catch (error) {
      this.deps.logger.error({ err: error, requestId: ctx.id }, "writing the request log failed");
    }
  }

  /** Tokens of an answer, for its admission's settlement: as it reports them, at once, or estimated. */
  #usage(ctx: RequestContext, request: unknown, response: unknown, stream: RelaySummary | undefined) {
    return reportedUsage(response) ?? this.#estimate(ctx, request, response, stream);
  }

  /** Tokens of an answer that reports none, counted. */
  async #estimate(ctx: RequestContext, request: unknown, response: unknown, stream: RelaySummary | undefined) {
    const usage = await estimatedUsage(ctx.endpoint.requestType, request, response, stream?.upstreamText);
    // Of a long stream passed through only the start was gathered: its estimate stands for the whole.
    if (usage && stream?.textShare) usage.output_tokens = Math.round(usage.output_tokens / stream.textShare);
    return usage;
  }
}
