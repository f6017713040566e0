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
import { CheckAbortedError, CheckTimeoutError, CredentialsError, NoTextError } from "./errors.js";
import { parameterError } from "./parameters.js";
import { plainDataProblem } from "./plain-data.js";
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
  /**
   * Once a synchronous guardrail denies, cancel the outstanding checks of the other synchronous
   * guardrails (the status is decided; their results show AbortError). Async guardrails run on.
   */
  stopOnDeny?: boolean;
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

/**
 * Hooks through which a pool worker publishes which checks are running and until when, so the
 * main thread can tell a check that stopped yielding from one still within its limit. A check's
 * slot is its position in the task: the checks of every guardrail, disabled ones included, in order.
 */
export interface CheckWatch {
  /** A check started; its limit ends `limitMs` from now. */
  started(slot: number, limitMs: number): void;
  /** The check settled (result, error, time limit or cancellation). */
  finished(slot: number): void;
}

/** The content a check sees; replaced (never mutated) by transforms. */
interface Content {
  request: unknown;
  response: unknown;
  located: EvaluatedText;
}

/** An enabled check and its slot in the task. */
interface EnabledCheck {
  config: CheckConfig;
  slot: number;
}

let clockMs = -1;
let clockIso = "";

/**
 * The current time as an ISO string, for `created_at`. A phase stamps every check and guardrail;
 * within one millisecond the string is the same, so it is formatted once per millisecond.
 */
function isoNow(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    clockIso = new Date(now).toISOString();
  }
  return clockIso;
}

/** Milliseconds with four significant digits: a fast check reads 0.004, not 0. */
function elapsed(start: number, end = performance.now()): number {
  return Number((end - start).toPrecision(4));
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

/**
 * The context a check's `run` gets; its `signal` is made on first read. A class with the getter on
 * its prototype, not an object literal: a literal whose getter closes over each check's state gets
 * a hidden class of its own, which V8 keeps until a full collection, and with it everything the
 * check allocated — garbage collection took 40% of a cheap phase's time before this.
 */
class RunContext implements CheckContext {
  declare guardrailId: string;
  declare side: Side;
  declare requestType: RequestType;
  declare text: string;
  declare request: unknown;
  declare response?: unknown;
  declare metadata: Record<string, string>;
  declare headers: Record<string, string>;
  declare model?: string;
  declare provider?: string;
  declare credentials?: Record<string, unknown>;
  declare settings: CheckSettings;
  declare toolArguments: boolean;
  readonly #signal: () => AbortSignal;

  constructor(
    guardrail: Guardrail,
    task: PhaseTask,
    requestType: RequestType,
    content: Content,
    credentials: Record<string, unknown> | undefined,
    signal: () => AbortSignal,
  ) {
    this.guardrailId = guardrail.id;
    this.side = task.side;
    this.toolArguments = guardrail.toolArguments !== false;
    this.requestType = requestType;
    this.text = content.located.text;
    this.request = content.request;
    this.response = content.response;
    this.metadata = task.metadata ?? {};
    this.headers = task.headers ?? {};
    if (task.model !== undefined) this.model = task.model;
    if (task.provider !== undefined) this.provider = task.provider;
    if (credentials !== undefined) this.credentials = credentials;
    this.settings = task.settings ?? {};
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    return this.#signal();
  }
}

/** When a check's run ended, for its execution_time: checks of a phase interleave, so the end is noted where it happens. */
interface Timing {
  end: number;
}

/** A cancellation's reason when it was given in words (a deny, a caller's string), else none. */
function abortReason(signal: AbortSignal | undefined): string | undefined {
  return typeof signal?.reason === "string" ? signal.reason : undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/**
 * Runs a check's `run` under its time limit and the phase's abort signal. A check that blocks
 * the thread cannot be interrupted here; when it returns after its limit, its result is discarded
 * and it counts as timed out all the same (in a pool worker, the main thread cuts it off sooner).
 * A check that answers synchronously needs no timer, so none is set for it.
 */
function runWithLimit(
  check: RegisteredCheck,
  config: CheckConfig,
  build: (signal: () => AbortSignal) => CheckContext,
  phaseSignal: AbortSignal | undefined,
  slot: number,
  watch: CheckWatch | undefined,
  timing: Timing,
): Promise<CheckOutcome> {
  const timeout = config.timeout ?? check.defaultTimeout;
  if (phaseSignal?.aborted) return Promise.reject(new CheckAbortedError(check.id, abortReason(phaseSignal)));
  // Most checks answer synchronously and never look at their signal: it is made on first read.
  let controller: AbortController | undefined;
  let stopped: Error | undefined;
  const signal = () => {
    if (!controller) {
      controller = new AbortController();
      if (stopped) controller.abort(stopped);
    }
    return controller.signal;
  };
  const started = performance.now();
  watch?.started(slot, timeout);
  let value: unknown;
  try {
    value = check.definition.run(build(signal), config.parameters);
  } catch (error) {
    timing.end = performance.now();
    watch?.finished(slot);
    return Promise.reject(error);
  }
  if (!isThenable(value)) {
    timing.end = performance.now();
    watch?.finished(slot);
    if (timing.end - started > timeout) return Promise.reject(new CheckTimeoutError(check.id, timeout));
    return Promise.resolve(value as CheckOutcome);
  }
  return new Promise<CheckOutcome>((resolve, reject) => {
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      timing.end = performance.now();
      clearTimeout(timer);
      phaseSignal?.removeEventListener("abort", onAbort);
      watch?.finished(slot);
      return true;
    };
    const stop = (error: Error) => {
      if (!settle()) return;
      stopped = error;
      controller?.abort(error);
      reject(error);
    };
    const onAbort = () => stop(new CheckAbortedError(check.id, abortReason(phaseSignal)));
    const timer = setTimeout(
      () => stop(new CheckTimeoutError(check.id, timeout)),
      Math.max(0, timeout - (performance.now() - started)),
    );
    phaseSignal?.addEventListener("abort", onAbort, { once: true });
    value.then(
      (outcome) => {
        if (!settle()) return;
        if (timing.end - started > timeout) reject(new CheckTimeoutError(check.id, timeout));
        else resolve(outcome as CheckOutcome);
      },
      (error: unknown) => {
        if (settle()) reject(error);
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
  // Results cross threads and become JSON: the same output must survive both, inline or in a worker.
  const { transformedRequest, transformedResponse, log } = outcome as CheckOutcome;
  const problem =
    plainDataProblem(data, "data") ??
    plainDataProblem(transformedRequest, "transformedRequest") ??
    plainDataProblem(transformedResponse, "transformedResponse");
  if (problem) throw new TypeError(`check ${id} returned output that is not plain data: ${problem}`);
  if (log !== undefined && log !== null && typeof log !== "string")
    throw new TypeError(`check ${id} returned a log that is not a string`);
  return outcome as CheckOutcome;
}

/** Content views without tool-call arguments, per content: the guardrails that opted out share one. */
const toolFreeViews = new WeakMap<Content, Content>();

/** The content as a guardrail with `tool_arguments: false` reads it: the same bodies, the text without tool arguments. */
function withoutToolArguments(run: PhaseRun, content: Content): Content {
  if (run.task.side !== "output") return content;
  let view = toolFreeViews.get(content);
  if (!view) {
    view = { ...content, located: locateText("output", run.requestType, content.response, { toolArguments: false }) };
    toolFreeViews.set(content, view);
  }
  return view;
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

/** A guardrail's result from its checks' results: verdict, feedback and deny follow from them. */
function guardrailResult(
  guardrail: Guardrail,
  checks: CheckResult[],
  transformed: boolean,
  execution_time: number,
  created_at: string,
): GuardrailResult {
  const verdict = guardrailVerdict(checks);
  // Field order of spec §2.4.
  const result: GuardrailResult = {
    verdict,
    id: guardrail.id,
    transformed,
    checks,
    feedback: buildFeedback(guardrail, checks, verdict),
    execution_time,
    async: guardrail.async,
    type: "guardrail",
    created_at,
    deny: guardrail.deny && !verdict,
  };
  if (guardrail.monitor) result.monitor = true;
  return result;
}

/** How a check that could not report failed, and how long it ran (ms) before it was given up. */
export interface LostCheck {
  error: CheckErrorValue;
  execution_time: number;
}

/**
 * The result of a phase whose checks could not report (their worker was stopped or crashed, or
 * the phase was cancelled before it finished): every enabled check errored as `lost` says, the
 * content stays as received, and the verdicts follow the usual `fail_on_error` rule.
 */
export function erroredPhase(task: PhaseTask, lost: (config: CheckConfig, slot: number) => LostCheck): PhaseResult {
  const created_at = isoNow();
  const bases = checkSlots(task.guardrails);
  const results = task.guardrails.map((guardrail, g) => {
    const checks: CheckResult[] = [];
    let longest = 0;
    guardrail.checks.forEach((config, i) => {
      if (!config.enabled) return;
      const { error, execution_time } = lost(config, (bases[g] as number) + i);
      longest = Math.max(longest, execution_time);
      checks.push({
        data: {},
        verdict: false,
        id: config.id,
        execution_time,
        transformed: false,
        created_at,
        log: null,
        error,
        fail_on_error: config.failOnError,
      });
    });
    return guardrailResult(guardrail, checks, false, longest, created_at);
  });
  return { results, request: task.request, response: task.response, transformed: false };
}

/** Slot of the first check of each guardrail (see CheckWatch). */
export function checkSlots(guardrails: readonly Guardrail[]): number[] {
  const bases: number[] = [];
  let next = 0;
  for (const guardrail of guardrails) {
    bases.push(next);
    next += guardrail.checks.length;
  }
  return bases;
}

/** What the checks of one phase share while it runs. */
interface PhaseRun {
  registry: CheckRegistry;
  /** The task as given. */
  task: PhaseTask;
  /** The task with its request type reduced to the base type. */
  phase: PhaseTask;
  requestType: RequestType;
  /** The content as received: what asynchronous guardrails and non-transforming checks see. */
  original: Content;
  /** The caller's signal: asynchronous guardrails follow it. */
  signal: AbortSignal | undefined;
  /** What synchronous guardrails follow: the caller's signal, and with stopOnDeny a deny too. */
  syncSignal: AbortSignal | undefined;
  /** Aborted once a synchronous guardrail denies, with stopOnDeny. */
  denied: AbortController | undefined;
  /** Transforms of synchronous guardrails are chained through this promise, in guardrail order. */
  chain: Promise<Content>;
  /** Redacts request-header secrets, and a check's own credentials, from its result. */
  redactorFor: (credentials: unknown) => Redactor;
  watch: CheckWatch | undefined;
}

/** Runs one check on `content` and builds its result; `next` is the content after its transform. */
async function runCheck(
  run: PhaseRun,
  guardrail: Guardrail,
  { config, slot }: EnabledCheck,
  phaseContent: Content,
  checkSignal: AbortSignal | undefined,
): Promise<{ result: CheckResult; next?: Content }> {
  const { task } = run;
  const content = guardrail.toolArguments === false ? withoutToolArguments(run, phaseContent) : phaseContent;
  const created_at = isoNow();
  const started = performance.now();
  const timing: Timing = { end: 0 };
  const check = run.registry.get(config.id);
  let outcome: CheckOutcome | undefined;
  let error: unknown;
  let next: Content | undefined;
  let given: unknown;
  try {
    if (!check) throw new Error(`check ${config.id} is not loaded in this engine`);
    // Judging an empty string would pass most checks silently: say there was nothing to read.
    if (content.located.slots.length === 0 && check.definition.readsText !== false) {
      throw new NoTextError(task.side, run.requestType);
    }
    // Taken before validation, so credentials that fail it are redacted all the same.
    given = config.credentials ?? task.credentials?.[check.plugin.id];
    const credentials = checkCredentials(check, config, task);
    outcome = validOutcome(
      await runWithLimit(
        check,
        config,
        (signal) => new RunContext(guardrail, task, run.requestType, content, credentials, signal),
        checkSignal,
        slot,
        run.watch,
        timing,
      ),
      config.id,
    );
    next = applyTransform(run.phase, content, outcome);
  } catch (caught) {
    error = caught;
  }
  // Built field by field in the order of spec §2.4; `error` only when the check errored.
  const result = {
    data: outcome?.data ?? {},
    verdict: error === undefined && outcome?.verdict === true,
    id: config.id,
    execution_time: elapsed(started, timing.end || performance.now()),
    transformed: next !== undefined,
    created_at,
    log: outcome?.log ?? null,
  } as CheckResult;
  if (error !== undefined) result.error = errorValue(error);
  result.fail_on_error = config.failOnError;
  try {
    run.redactorFor(given).result(result);
  } catch {
    // Data whose reading throws (a hostile getter or proxy) cannot be shown safely: drop it.
    Object.assign(result, { data: {}, verdict: false, log: null });
    result.error ??= { name: "TypeError", message: `check ${config.id} returned data that cannot be read` };
  }
  return next ? { result, next } : { result };
}

/**
 * Runs the checks of one guardrail: asynchronous ones on the content as received; synchronous
 * ones after the transforms of the guardrails before them, either one after another
 * (`sequential`) or with the transforming checks in order and the others concurrently.
 */
async function runGuardrail(run: PhaseRun, guardrail: Guardrail, base: number): Promise<GuardrailResult> {
  const created_at = isoNow();
  const started = performance.now();
  const enabled: EnabledCheck[] = [];
  guardrail.checks.forEach((config, i) => {
    if (config.enabled) enabled.push({ config, slot: base + i });
  });
  const results: CheckResult[] = new Array(enabled.length);
  let changed = false;
  const transforming = (c: EnabledCheck) => run.registry.get(c.config.id)?.definition.transforms === true;
  const own = guardrail.async ? run.signal : run.syncSignal;

  if (guardrail.async) {
    // Sees the content as received; whatever it would transform stays unapplied.
    await Promise.all(
      enabled.map(async (config, i) => {
        results[i] = (await runCheck(run, guardrail, config, run.original, own)).result;
      }),
    );
  } else if (guardrail.sequential) {
    const previous = run.chain;
    const done = (async () => {
      let content = await previous;
      for (const [i, config] of enabled.entries()) {
        const { result, next } = await runCheck(run, guardrail, config, content, own);
        results[i] = result;
        if (next) {
          content = next;
          changed = true;
        }
        if (own?.aborted) break;
      }
      return content;
    })();
    run.chain = done;
    await done;
  } else {
    const previous = run.chain;
    const transformsDone = (async () => {
      let content = await previous;
      for (const [i, config] of enabled.entries()) {
        if (!transforming(config)) continue;
        const { result, next } = await runCheck(run, guardrail, config, content, own);
        results[i] = result;
        if (next) {
          content = next;
          changed = true;
        }
      }
      return content;
    })();
    run.chain = transformsDone;
    await Promise.all([
      transformsDone,
      ...enabled.map(async (config, i) => {
        if (!transforming(config)) results[i] = (await runCheck(run, guardrail, config, run.original, own)).result;
      }),
    ]);
  }

  const result = guardrailResult(guardrail, results.filter(Boolean), changed, elapsed(started), created_at);
  const { denied } = run;
  if (denied && !guardrail.async && result.deny && !denied.signal.aborted) {
    denied.abort(`guardrail ${guardrail.id} already denied the ${run.task.side === "input" ? "request" : "response"}`);
  }
  return result;
}

/** Runs every guardrail of a phase; `watch` is how a pool worker reports progress to its pool. */
export async function runPhase(
  registry: CheckRegistry,
  task: PhaseTask,
  signal?: AbortSignal,
  watch?: CheckWatch,
): Promise<PhaseResult> {
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

  // With stopOnDeny, synchronous guardrails listen to their own signal, which a deny aborts too.
  let denied: AbortController | undefined;
  let syncSignal = signal;
  if (task.stopOnDeny) {
    const controller = new AbortController();
    denied = controller;
    syncSignal = controller.signal;
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }

  const run: PhaseRun = {
    registry,
    task,
    phase,
    requestType,
    original,
    signal,
    syncSignal,
    denied,
    chain: Promise.resolve(original),
    redactorFor,
    watch,
  };
  const bases = checkSlots(phase.guardrails);
  const results = await Promise.all(phase.guardrails.map((guardrail, i) => runGuardrail(run, guardrail, bases[i] as number)));
  const final = await run.chain;
  return {
    results,
    request: final.request,
    response: final.response,
    transformed: final !== original,
  };
}
