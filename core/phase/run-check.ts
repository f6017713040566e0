/**
 * One check's run within a phase, from its config to its result (spec §2.4): the credentials it
 * gets, the context it reads, its outcome validated, its transform applied, its result's secrets
 * redacted. Whatever the check does, exactly one result comes out: errors become the result's
 * `error`, never an exception out of the phase.
 */
import { CredentialsError, NoTextError } from "../errors.js";
import { parameterError } from "../parameters.js";
import type { CheckOutcome } from "../plugin-api.js";
import type { RegisteredCheck } from "../registry.js";
import type { CheckConfig, CheckResult, Guardrail } from "../types.js";
import { RunContext } from "./check-context.js";
import { elapsed, isoNow, type PhaseClock } from "./clock.js";
import { errorValue, validOutcome } from "./outcome.js";
import type { Content, EnabledCheck, PhaseRun } from "./state.js";
import type { PhaseTask } from "./task.js";
import { runNowWithLimit, runWithLimit, type Timing } from "./time-limit.js";
import { applyTransform, withoutToolArguments, withoutToolResults } from "./transforms.js";

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

/** A check's run: its result, and the content after its transform when it changed it. */
export interface CheckRun {
  result: CheckResult;
  next?: Content;
}

/** The content a check of `guardrail` reads: without tool arguments or results when the guardrail opted out. */
function contentFor(run: PhaseRun, guardrail: Guardrail, phaseContent: Content): Content {
  return guardrail.toolArguments === false
    ? withoutToolArguments(run, phaseContent)
    : guardrail.toolResults === false
      ? withoutToolResults(run, phaseContent)
      : phaseContent;
}

/** Throws what keeps a check from running: it is not loaded, or there is no text for it to read. */
function assertRunnable(
  run: PhaseRun,
  config: CheckConfig,
  check: RegisteredCheck | undefined,
  content: Content,
): asserts check is RegisteredCheck {
  if (!check) throw new Error(`check ${config.id} is not loaded in this engine`);
  // Judging an empty string would pass most checks silently: say there was nothing to read.
  if (content.located.slots.length === 0 && check.definition.readsText !== false) {
    throw new NoTextError(run.task.side, run.requestType);
  }
}

/** Runs one check on `content` and builds its result; `next` is the content after its transform. */
export async function runCheck(
  run: PhaseRun,
  guardrail: Guardrail,
  { config, slot, check }: EnabledCheck,
  phaseContent: Content,
  checkSignal: AbortSignal | undefined,
): Promise<CheckRun> {
  const { task } = run;
  const content = contentFor(run, guardrail, phaseContent);
  const created_at = isoNow();
  const started = performance.now();
  const timing: Timing = { end: 0 };
  let outcome: CheckOutcome | undefined;
  let error: unknown;
  let next: Content | undefined;
  let given: unknown;
  try {
    assertRunnable(run, config, check, content);
    // Taken before validation, so credentials that fail it are redacted all the same.
    given = config.credentials ?? task.credentials?.[check.plugin.id];
    const credentials = checkCredentials(check, config, task);
    const answer = runWithLimit(
      check,
      config,
      (signal) => new RunContext(guardrail, task, run.requestType, content, credentials, signal),
      checkSignal,
      slot,
      run.watch,
      timing,
    );
    // A synchronous check's outcome is used as it is: awaiting it would cost a promise and a tick.
    outcome = validOutcome(answer instanceof Promise ? await answer : answer, config.id);
    next = applyTransform(task.side, run.requestType, content, outcome);
  } catch (caught) {
    error = caught;
  }
  return checkRun(run, config, outcome, error, next, elapsed(started, timing.end || performance.now()), created_at, given);
}

/**
 * `runCheck` without a promise when the check answers synchronously: its run is returned as it
 * is, and a promise only when the check's `run` returned one. Times come from the phase's clock.
 */
export function runCheckNow(
  run: PhaseRun,
  guardrail: Guardrail,
  { config, check }: EnabledCheck,
  phaseContent: Content,
  checkSignal: AbortSignal | undefined,
  clock: PhaseClock,
): CheckRun | Promise<CheckRun> {
  const { task } = run;
  const content = contentFor(run, guardrail, phaseContent);
  const started = clock.start();
  const timing: Timing = { end: 0 };
  let outcome: CheckOutcome | undefined;
  let error: unknown;
  let next: Content | undefined;
  let given: unknown;
  try {
    assertRunnable(run, config, check, content);
    given = config.credentials ?? task.credentials?.[check.plugin.id];
    const credentials = checkCredentials(check, config, task);
    const context = new RunContext(guardrail, task, run.requestType, content, credentials);
    const answer = runNowWithLimit(check, config, context, checkSignal, started, timing);
    if (answer instanceof Promise) return settleLater(run, config, content, answer, started, timing, clock, given);
    outcome = validOutcome(answer, config.id);
    next = applyTransform(task.side, run.requestType, content, outcome);
  } catch (caught) {
    error = caught;
  }
  const end = timing.end || performance.now();
  clock.ended(end);
  return checkRun(run, config, outcome, error, next, elapsed(started, end), clock.iso(started), given);
}

/**
 * As runCheck settles an awaited outcome: validated, transformed, or the error it threw. Apart
 * from runCheckNow so that its closures (and the context object they share) are made only for a
 * check that answered with a promise.
 */
function settleLater(
  run: PhaseRun,
  config: CheckConfig,
  content: Content,
  answer: Promise<CheckOutcome>,
  started: number,
  timing: Timing,
  clock: PhaseClock,
  given: unknown,
): Promise<CheckRun> {
  const settle = (value: unknown, failed: boolean, caught: unknown): CheckRun => {
    let outcome: CheckOutcome | undefined;
    let next: Content | undefined;
    if (!failed) {
      try {
        outcome = validOutcome(value, config.id);
        next = applyTransform(run.task.side, run.requestType, content, outcome);
      } catch (invalid) {
        caught = invalid;
      }
    }
    const time = elapsed(started, timing.end || performance.now());
    return checkRun(run, config, outcome, caught, next, time, clock.iso(started), given);
  };
  return answer.then(
    (value) => settle(value, false, undefined),
    (caught: unknown) => settle(undefined, true, caught),
  );
}

/** A check's result, built field by field in the order of spec §2.4, its secrets redacted. */
function checkRun(
  run: PhaseRun,
  config: CheckConfig,
  outcome: CheckOutcome | undefined,
  error: unknown,
  next: Content | undefined,
  execution_time: number,
  created_at: string,
  given: unknown,
): CheckRun {
  // `error` only when the check errored.
  const result = {
    data: outcome?.data ?? {},
    verdict: error === undefined && outcome?.verdict === true,
    id: config.id,
    execution_time,
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
