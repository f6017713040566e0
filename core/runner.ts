/**
 * Runs one phase: every check of every guardrail of one side of one request. Guardrails run
 * concurrently; checks of a guardrail run concurrently, or in order when `sequential`. Transforms
 * compose instead of overwriting one another: transforming checks apply in guardrail order, then
 * check order, each seeing the text the previous one produced. Asynchronous guardrails see the
 * original content and their transforms are never applied (they cannot change the request).
 *
 * The phase is plain data in and plain data out, so the same function runs inline or in a worker.
 */
import { buildFeedback, guardrailVerdict } from "./aggregate.js";
import { baseRequestType, type EvaluatedText, locateText, writeText } from "./content.js";
import { CheckAbortedError, CheckTimeoutError } from "./errors.js";
import type { CheckContext, CheckOutcome, CheckSettings } from "./plugin-api.js";
import type { CheckRegistry, RegisteredCheck } from "./registry.js";
import type { CheckConfig, CheckErrorValue, CheckResult, Guardrail, GuardrailResult, RequestType, Side } from "./types.js";

/** Everything one phase needs; structured-clone safe. */
export interface PhaseTask {
  side: Side;
  requestType: RequestType;
  request: unknown;
  response?: unknown;
  guardrails: Guardrail[];
  metadata?: Record<string, string>;
  headers?: Record<string, string>;
  model?: string;
  provider?: string;
  /** Credentials per plugin id, from the integrations the service holds. */
  credentials?: Record<string, Record<string, unknown>>;
  settings?: CheckSettings;
}

/** What one phase yields; structured-clone safe. */
export interface PhaseResult {
  /** One result per guardrail, in the task's order. */
  results: GuardrailResult[];
  request: unknown;
  response: unknown;
  /** Whether a synchronous guardrail changed the request or response. */
  transformed: boolean;
}

/** The content a check sees; replaced (never mutated) by transforms. */
interface Content {
  request: unknown;
  response: unknown;
  located: EvaluatedText;
}

/** Milliseconds with four significant digits: a fast check reads 0.004, not 0. */
function elapsed(start: number): number {
  return Number((performance.now() - start).toPrecision(4));
}

function errorValue(error: unknown): CheckErrorValue {
  if (error instanceof Error) return { name: error.name, message: error.message };
  if (typeof error === "string") return error;
  return { name: "Error", message: String(error) };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Runs a check's `run` under its time limit and the phase's abort signal. A check that returns at
 * once cannot be interrupted by a timer on this thread anyway, so the abort controller is made only
 * when the check reads its signal and the timer only when it returns a promise: a deterministic
 * check costs neither.
 */
function runWithLimit(
  check: RegisteredCheck,
  config: CheckConfig,
  build: (signal: () => AbortSignal) => CheckContext,
  phaseSignal: AbortSignal | undefined,
): Promise<CheckOutcome> {
  if (phaseSignal?.aborted) return Promise.reject(new CheckAbortedError(check.id));
  let controller: AbortController | undefined;
  const signal = () => {
    controller ??= new AbortController();
    return controller.signal;
  };
  let returned: CheckOutcome | Promise<CheckOutcome>;
  try {
    returned = check.definition.run(build(signal), config.parameters);
  } catch (error) {
    return Promise.reject(error);
  }
  if (!isThenable(returned)) return Promise.resolve(returned);
  const timeout = config.timeout ?? check.defaultTimeout;
  return new Promise<CheckOutcome>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new CheckTimeoutError(check.id, timeout);
      controller?.abort(error);
      reject(error);
    }, timeout);
    const onAbort = () => {
      const error = new CheckAbortedError(check.id);
      controller?.abort(error);
      reject(error);
    };
    phaseSignal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      phaseSignal?.removeEventListener("abort", onAbort);
    };
    Promise.resolve(returned).then(
      (outcome) => {
        settle();
        resolve(outcome);
      },
      (error) => {
        settle();
        reject(error);
      },
    );
  });
}

function validOutcome(outcome: unknown, id: string): CheckOutcome {
  if (!outcome || typeof outcome !== "object" || typeof (outcome as CheckOutcome).verdict !== "boolean") {
    throw new TypeError(`check ${id} returned no boolean verdict`);
  }
  const data = (outcome as CheckOutcome).data;
  if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) {
    throw new TypeError(`check ${id} returned data that is not an object`);
  }
  const text = (outcome as CheckOutcome).transformedText;
  if (text !== undefined && typeof text !== "string")
    throw new TypeError(`check ${id} returned a transformedText that is not a string`);
  return outcome as CheckOutcome;
}

/** Applies a check's transform to the content of its side; returns undefined when nothing changed. */
function applyTransform(task: PhaseTask, content: Content, outcome: CheckOutcome): Content | undefined {
  const input = task.side === "input";
  let body = input ? content.request : content.response;
  const replaced = input ? outcome.transformedRequest : outcome.transformedResponse;
  if (replaced !== undefined) body = replaced;
  if (outcome.transformedText !== undefined) {
    const located = replaced !== undefined ? locateText(task.side, task.requestType, body) : content.located;
    body = writeText(body, located, outcome.transformedText);
  }
  if (body === (input ? content.request : content.response)) return undefined;
  return {
    request: input ? body : content.request,
    response: input ? content.response : body,
    located: locateText(task.side, task.requestType, body),
  };
}

/** Runs every guardrail of a phase. */
export async function runPhase(registry: CheckRegistry, task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult> {
  const requestType = baseRequestType(task.requestType) ?? task.requestType;
  const phase: PhaseTask = { ...task, requestType };
  const original: Content = {
    request: task.request,
    response: task.response,
    located: locateText(task.side, requestType, task.side === "input" ? task.request : task.response),
  };

  const runCheck = async (
    guardrailId: string,
    config: CheckConfig,
    content: Content,
  ): Promise<{ result: CheckResult; next?: Content }> => {
    const created_at = new Date().toISOString();
    const started = performance.now();
    const check = registry.get(config.id);
    let outcome: CheckOutcome | undefined;
    let error: unknown;
    let next: Content | undefined;
    try {
      if (!check) throw new Error(`check ${config.id} is not loaded in this engine`);
      const credentials = config.credentials ?? task.credentials?.[check.plugin.id];
      outcome = validOutcome(
        await runWithLimit(
          check,
          config,
          (checkSignal) => ({
            guardrailId,
            side: task.side,
            requestType,
            text: content.located.text,
            request: content.request,
            response: content.response,
            metadata: task.metadata ?? {},
            headers: task.headers ?? {},
            ...(task.model !== undefined && { model: task.model }),
            ...(task.provider !== undefined && { provider: task.provider }),
            ...(credentials !== undefined && { credentials }),
            get signal() {
              return checkSignal();
            },
            settings: task.settings ?? {},
          }),
          signal,
        ),
        config.id,
      );
      next = applyTransform(phase, content, outcome);
    } catch (caught) {
      error = caught;
    }
    // Built field by field in the order of spec §2.4; `error` only when the check errored.
    const result = {
      data: outcome?.data ?? {},
      verdict: error === undefined && outcome?.verdict === true,
      id: config.id,
      execution_time: elapsed(started),
      transformed: next !== undefined,
      created_at,
      log: outcome?.log ?? null,
    } as CheckResult;
    if (error !== undefined) result.error = errorValue(error);
    result.fail_on_error = config.failOnError;
    return next ? { result, next } : { result };
  };

  // Transforms of synchronous guardrails are chained through this promise, in guardrail order.
  let chain: Promise<Content> = Promise.resolve(original);

  const runGuardrail = async (guardrail: Guardrail): Promise<GuardrailResult> => {
    const created_at = new Date().toISOString();
    const started = performance.now();
    const enabled = guardrail.checks.filter((c) => c.enabled);
    const results: CheckResult[] = new Array(enabled.length);
    let changed = false;
    const transforming = (c: CheckConfig) => registry.get(c.id)?.definition.transforms === true;

    if (guardrail.async) {
      // Sees the content as received; whatever it would transform stays unapplied.
      await Promise.all(
        enabled.map(async (config, i) => {
          results[i] = (await runCheck(guardrail.id, config, original)).result;
        }),
      );
    } else if (guardrail.sequential) {
      const previous = chain;
      const done = (async () => {
        let content = await previous;
        for (const [i, config] of enabled.entries()) {
          const { result, next } = await runCheck(guardrail.id, config, content);
          results[i] = result;
          if (next) {
            content = next;
            changed = true;
          }
          if (signal?.aborted) break;
        }
        return content;
      })();
      chain = done;
      await done;
    } else {
      const previous = chain;
      const transformsDone = (async () => {
        let content = await previous;
        for (const [i, config] of enabled.entries()) {
          if (!transforming(config)) continue;
          const { result, next } = await runCheck(guardrail.id, config, content);
          results[i] = result;
          if (next) {
            content = next;
            changed = true;
          }
        }
        return content;
      })();
      chain = transformsDone;
      await Promise.all([
        transformsDone,
        ...enabled.map(async (config, i) => {
          if (!transforming(config)) results[i] = (await runCheck(guardrail.id, config, original)).result;
        }),
      ]);
    }

    const checks = results.filter(Boolean);
    const verdict = guardrailVerdict(checks);
    return {
      verdict,
      id: guardrail.id,
      transformed: changed,
      checks,
      feedback: buildFeedback(guardrail, checks, verdict),
      execution_time: elapsed(started),
      async: guardrail.async,
      type: "guardrail",
      created_at,
      deny: guardrail.deny && !verdict,
    };
  };

  const results = await Promise.all(phase.guardrails.map(runGuardrail));
  const final = await chain;
  return {
    results,
    request: final.request,
    response: final.response,
    transformed: final !== original,
  };
}
