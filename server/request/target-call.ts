/**
 * One call of a prepared target, as a stack of interceptors composed once per gateway (like
 * undici's around one dispatch): retry repeats what is below it and records each attempt; the
 * mock answers for the mock provider; the cache answers a hit and marks where a miss is kept; the
 * upstream call (the provider kind's adapter) is the bottom. Each step's answer has had the
 * output side run on it (`output.ts`). The headers that cross to the upstream and back are chosen
 * here too, for this call and for the routes that forward a request as it is.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isObject } from "../../core/internal.js";
import { GatewayError } from "../errors.js";
import { FORMAT_LIST, FORMATS, type FormatName, type WireFormat } from "../formats/index.js";
import { headerValue } from "../gateway-headers.js";
import type { CallFacts, ProviderCall } from "../providers/kind.js";
import { sendCall } from "../providers/send.js";
import { kindOf } from "../providers/catalog.js";
import type { Conversations } from "../providers/conversations.js";
import { mockBody, mockStream } from "../providers/mock.js";
import { scrubSecrets } from "../providers/options.js";
import type { UpstreamClient } from "../upstream/client.js";
import { type Answers, failureAnswer } from "./output.js";
import type { AttemptRecord } from "../logs/record.js";
import {
  Abandoned,
  appendHookResults,
  attemptOf,
  discardOutcome,
  hookResultsOf,
  type JsonOutcome,
  type Leaf,
  ok,
  type Outcome,
  providerLabel,
  retryStatus,
} from "./attempts.js";
import type { RequestContext } from "./context.js";
import type { AnswerCache } from "./response-cache.js";
import { parseRetryAfter, type RetryTiming, retryDelay, sleep } from "./retry.js";
import { regroupsStream } from "./stream-coverage.js";

/** One call of a target as it passes down the stack; retry refills the per-attempt fields. */
export interface TargetCall {
  ctx: RequestContext;
  leaf: Leaf;
  /** 0 for the first call, n for the n-th retry. */
  attempt: number;
  /** What the provider's kind notes of this attempt for the log. */
  facts: CallFacts;
  /** Where a fresh 2xx answer of this attempt is cached; set by the cache on a miss. */
  cacheKey?: string | undefined;
  /** The request as sent upstream, worked out once per attempt (`wireOf`). */
  wire?: Wire | undefined;
}

/** Calls what lies below in the stack. */
export type Dispatch = (call: TargetCall) => Promise<Outcome>;

/** One step of the stack: answers by itself, or hands the call to `next`. */
export type Interceptor = (call: TargetCall, next: Dispatch) => Promise<Outcome>;

/** The request as sent upstream. */
interface Wire {
  request: Record<string, unknown>;
  text: string;
  /** Set when a stream is asked whole and regrouped into events here (several choices under a redaction). */
  regroup: NonNullable<WireFormat["streamOf"]> | undefined;
}

/** What the stack needs. */
export interface TargetCallDeps {
  answers: Answers;
  upstream: UpstreamClient;
  cache: AnswerCache;
  retryTiming: RetryTiming;
  /** Stored Responses conversations, for `previous_response_id` on providers reached through chat. */
  conversations?: Conversations;
}

/** `interceptors` (outermost first) around `bottom`, composed once: each step's `next` is fixed here. */
export function compose(interceptors: readonly Interceptor[], bottom: Dispatch): Dispatch {
  return interceptors.reduceRight<Dispatch>((next, step) => (call) => step(call, next), bottom);
}

/** The stack a gateway calls its targets through: retry, mock, cache, upstream. */
export function targetCallStack(deps: TargetCallDeps): Dispatch {
  return compose([retrying(deps.retryTiming), mocking(deps.answers), caching(deps.cache, deps.answers)], upstreamCall(deps));
}

function streamingOf(ctx: RequestContext): boolean {
  return ctx.stream && ctx.endpoint.requestType !== "embed";
}

/** A streamed request as asked of the upstream whole. */
function asWhole(request: Record<string, unknown>): Record<string, unknown> {
  const whole = { ...request };
  delete whole.stream;
  delete whole.stream_options;
  return whole;
}

/** The request this attempt sends upstream (and the cache keys on). */
function wireOf(call: TargetCall): Wire {
  if (call.wire) return call.wire;
  const { ctx, leaf } = call;
  // Several choices under a redaction: asked whole, then streamed to the client choice after choice.
  const streamOf = FORMATS[ctx.endpoint.format].streamOf;
  const regroup =
    streamingOf(ctx) && streamOf && regroupsStream(leaf.node.stream, ctx.endpoint.requestType, leaf.request)
      ? streamOf
      : undefined;
  const request = regroup ? asWhole(leaf.request) : leaf.request;
  call.wire = { request, text: JSON.stringify(request), regroup };
  return call.wire;
}

/**
 * Repeats the call below for the target's `retry` codes, with backoff (or the upstream's
 * Retry-After); a gateway error below becomes an answer here, and every attempt is recorded.
 */
export function retrying(timing: RetryTiming): Interceptor {
  return async (call, next) => {
    const { ctx, leaf } = call;
    const retry = leaf.node.settings.retry;
    const tried: AttemptRecord[] = [];
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const facts: CallFacts = {};
      call.attempt = attempt;
      call.facts = facts;
      call.cacheKey = undefined;
      call.wire = undefined;
      let outcome: Outcome;
      try {
        outcome = await next(call);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw new Abandoned(error, tried);
        outcome = failureAnswer(ctx, error, leaf);
      }
      outcome.facts = facts;
      tried.push(attemptOf(leaf.node, leaf, outcome.status, started, outcome.kind === "json" ? outcome : undefined));
      outcome.attempts = tried;
      if (!retry || attempt >= retry.attempts || !retry.onStatusCodes.includes(retryStatus(outcome))) return outcome;
      const delay = retryDelay(attempt, outcome.kind === "json" ? outcome.retryAfterMs : undefined, timing);
      if (delay === undefined) return outcome;
      discardOutcome(outcome);
      try {
        await sleep(delay, ctx.signal);
      } catch (error) {
        throw new Abandoned(error, tried);
      }
    }
  };
}

/** The mock provider answers from the config's or the request's `mock_response`; nothing is called. */
export function mocking(answers: Answers): Interceptor {
  return (call, next) => {
    const { ctx, leaf } = call;
    if (leaf.provider.kind !== "mock") return next(call);
    const endpoint = ctx.endpoint;
    const mockResponse = leaf.node.settings.mockResponse ?? ctx.body.mock_response;
    if (streamingOf(ctx)) {
      const source = (async function* () {
        yield* mockStream(endpoint, leaf.request, mockResponse);
      })();
      return answers.stream(ctx, leaf, {}, source);
    }
    return answers.json(ctx, leaf, 200, mockBody(endpoint, leaf.request, mockResponse), {});
  };
}

/** A cached answer for a target with `cache` set (not streamed); on a miss, the key the upstream's answer is kept under. */
export function caching(cache: AnswerCache, answers: Answers): Interceptor {
  // Not async itself, so a target without a cache passes through without a promise of its own.
  return (call, next) => {
    const { ctx, leaf } = call;
    if (!leaf.node.settings.cache || ctx.stream || leaf.provider.kind !== "http") return next(call);
    const key = cache.key({
      workspaceId: ctx.identity.workspaceId,
      provider: leaf.provider.identity,
      path: ctx.endpoint.upstreamPath,
      body: wireOf(call).text,
    });
    call.cacheKey = key;
    // A retry asks the upstream again: the cached answer is what is being retried.
    return call.attempt === 0 ? cachedOr(cache, answers, key, call, next) : next(call);
  };
}

async function cachedOr(cache: AnswerCache, answers: Answers, key: string, call: TargetCall, next: Dispatch): Promise<Outcome> {
  const hit = await cache.get(key);
  if (!hit) return next(call);
  return answers.json(call.ctx, call.leaf, hit.status, JSON.parse(hit.text) as Record<string, unknown>, hit.headers, "HIT");
}

/** The bottom of the stack: the provider kind's adapter calls the upstream, and its answer is checked. */
export function upstreamCall(deps: TargetCallDeps): Dispatch {
  const { answers, cache } = deps;
  return async (call) => {
    const { ctx, leaf, cacheKey } = call;
    const { provider, node } = leaf;
    // The mock interceptor answered any other.
    if (provider.kind !== "http") throw new Error(`the upstream call got the ${provider.name} provider`);
    const endpoint = ctx.endpoint;
    const streaming = streamingOf(ctx);
    const { request, text: sent, regroup } = wireOf(call);
    const providerCall: ProviderCall = {
      endpoint,
      body: request,
      text: sent,
      stream: streaming && !regroup,
      headers: upstreamHeaders(ctx.headers, provider, streaming && !regroup),
      provider,
      dropParams: node.settings.dropParams === true,
      ...(node.settings.requestTimeoutMs !== undefined && { timeoutMs: node.settings.requestTimeoutMs }),
      signal: ctx.signal,
      facts: call.facts,
      ...(deps.conversations && { conversation: conversationOf(deps.conversations, ctx.identity.workspaceId) }),
    };
    const response = await sendCall(kindOf(provider.name), deps.upstream, providerCall);
    const headers = passedBackHeaders(response.headers);
    if (streaming && ok(response.status) && response.contentType.includes("text/event-stream")) {
      return answers.stream(ctx, leaf, headers, response.stream(), () => response.discard());
    }
    const text = scrubSecrets(await response.text(), provider);
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (ok(response.status)) {
      if (!isObject(parsed)) {
        throw new GatewayError(
          "upstream_invalid_response",
          `the upstream ${providerLabel(provider)} answered ${response.status} with a body that is not a JSON object`,
        );
      }
      if (regroup) {
        // Checked whole first, so each choice's redaction lands in its own choice (a stream's hold
        // maps a redaction by position, and one spanning two choices' seam would move text across
        // them); a deny is a 446 before any byte. The redacted answer then streams through the
        // relay like any held stream, whose checks find nothing left to change.
        const checked = await answers.json(ctx, leaf, response.status, parsed, headers);
        if (checked.status === 446 || !checked.output) return checked;
        const asked = (leaf.request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
        const events = regroup(endpoint.requestType, asked ? checked.output : { ...checked.output, usage: undefined });
        return answers.stream(
          ctx,
          leaf,
          headers,
          (async function* () {
            yield* events;
          })(),
        );
      }
      if (cacheKey) cache.set(cacheKey, { status: response.status, text, headers }, node.settings.cache?.maxAgeSeconds);
      const outcome = await answers.json(ctx, leaf, response.status, parsed, headers, cacheKey ? "MISS" : undefined);
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
  };
}

/** The reader of one workspace's stored Responses conversations. */
function conversationOf(conversations: Conversations, workspaceId: string): (id: string) => Promise<Record<string, unknown>[]> {
  return (id) => conversations.history(workspaceId, id);
}

// The headers that cross to the upstream and back: the client's headers a provider's format
// forwards, and the upstream's headers worth passing back. Credentials are added by the provider.

/** Client headers passed to the upstream, whatever the provider's format; its credential headers are added separately. */
const FORWARDED = FORMAT_LIST.flatMap((format) => format.forwardedHeaders);
/** Forwarded with the caller's own credential: the above and the headers that select the caller's account. */
const FORWARDED_WITH_CALLER_CREDENTIAL = [...FORWARDED, ...FORMAT_LIST.flatMap((format) => format.forwardedWithCallerCredential)];

/** The headers of an upstream call. */
export function upstreamHeaders(
  headers: IncomingHttpHeaders,
  provider: { format?: FormatName; headers: Record<string, string>; slug?: string },
  stream: boolean,
): Record<string, string> {
  const out: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
    "accept-encoding": "identity",
  };
  const names = provider.slug ? FORWARDED : FORWARDED_WITH_CALLER_CREDENTIAL;
  for (const name of names) {
    const value = headerValue(headers, name);
    if (value) out[name] = value;
  }
  const defaults = provider.format ? FORMATS[provider.format].upstreamDefaults : {};
  for (const [name, value] of Object.entries(defaults)) if (!out[name]) out[name] = value;
  return Object.assign(out, provider.headers);
}

/** The response headers passed back whatever the provider's format, made once from every format's list. */
const PASSED_BACK_NAMES = new Set(["retry-after", ...FORMAT_LIST.flatMap((format) => format.passedBack.names)]);
const PASSED_BACK_PREFIXES = [...new Set(FORMAT_LIST.flatMap((format) => format.passedBack.prefixes))];

/** Upstream response headers worth passing back: request ids, rate limits, Retry-After. */
export function passedBackHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (PASSED_BACK_NAMES.has(name) || PASSED_BACK_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      out[name] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return out;
}
