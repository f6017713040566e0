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
import { CheckAbortedError, CheckTimeoutError, CredentialsError } from "./errors.js";
import { parameterError } from "./parameters.js";
import type { CheckContext, CheckOutcome, CheckSettings } from "./plugin-api.js";
import { collectSecrets, headerSecrets, Redactor } from "./redact.js";
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
  // A hostile check may throw anything, even a value whose name, message or conversion throws.
  try {
    if (error instanceof Error) return { name: String(error.name), message: String(error.message) };
    if (typeof error === "string") return error;
    return { name: "Error", message: String(error) };
  } catch {
    return { name: "Error", message: "the check threw a value that cannot be described" };
  }
}

/**
 * The credentials a check gets: those of its parameters (validated when the config was loaded),
 * else the integration's for its plugin, which must match the plugin's credentials schema.
 */
function checkCredentials(check: RegisteredCheck, config: CheckConfig, task: PhaseTask): Record<string, unknown> | undefined {
  if (config.credentials !== undefined) return config.credentials;
  const held = task.credentials?.[check.plugin.id];
  if (!check.validateCredentials) return held;
  // Validated on a copy: defaults from the schema must not change the caller's object.
  const credentials = structuredClone(held ?? {});
  if (!check.validateCredentials(credentials)) {
    const problem = parameterError(check.validateCredentials.errors, "credentials", check.plugin.credentials ?? {}).message;
    throw new CredentialsError(
      held === undefined
        ? `plugin "${check.plugin.id}" needs credentials (${problem}): add an integration for it or set the check's parameters.credentials`
        : `the integration's credentials for plugin "${check.plugin.id}" do not match its credentials schema: ${problem}`,
    );
  }
  return held === undefined && Object.keys(credentials).length === 0 ? undefined : credentials;
}

/** Runs a check's `run` under its time limit and the phase's abort signal. */
function runWithLimit(
  check: RegisteredCheck,
  config: CheckConfig,
  build: (signal: AbortSignal) => CheckContext,
  phaseSignal: AbortSignal | undefined,
): Promise<CheckOutcome> {
  const timeout = config.timeout ?? check.defaultTimeout;
  const controller = new AbortController();
  return new Promise<CheckOutcome>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new CheckTimeoutError(check.id, timeout);
      controller.abort(error);
      reject(error);
    }, timeout);
    const onAbort = () => {
      const error = new CheckAbortedError(check.id);
      controller.abort(error);
      reject(error);
    };
    if (phaseSignal?.aborted) return onAbort();
    phaseSignal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      phaseSignal?.removeEventListener("abort", onAbort);
    };
    try {
      Promise.resolve(check.definition.run(build(controller.signal), config.parameters)).then(
        (outcome) => {
          settle();
          resolve(outcome);
        },
        (error) => {
          settle();
          reject(error);
        },
      );
    } catch (error) {
      settle();
      reject(error);
    }
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

  // Secrets of the request headers are redacted from every result, with the check's own credentials.
  const requestSecrets = headerSecrets(task.headers, new Set());
  const phaseRedactor = new Redactor(requestSecrets);
  const redactorFor = (credentials: unknown) =>
    credentials === undefined ? phaseRedactor : new Redactor(collectSecrets(credentials, new Set(requestSecrets)));

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
    let given: unknown;
    try {
      if (!check) throw new Error(`check ${config.id} is not loaded in this engine`);
      // Taken before validation, so credentials that fail it are redacted all the same.
      given = config.credentials ?? task.credentials?.[check.plugin.id];
      const credentials = checkCredentials(check, config, task);
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
            signal: checkSignal,
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
    try {
      redactorFor(given).result(result);
    } catch {
      // Data whose reading throws (a hostile getter or proxy) cannot be shown safely: drop it.
      Object.assign(result, { data: {}, verdict: false, log: null });
      result.error ??= { name: "TypeError", message: `check ${config.id} returned data that cannot be read` };
    }
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
