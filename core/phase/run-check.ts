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
import { elapsed, isoNow } from "./clock.js";
import { errorValue, validOutcome } from "./outcome.js";
import type { Content, EnabledCheck, PhaseRun } from "./state.js";
import type { PhaseTask } from "./task.js";
import { runWithLimit, type Timing } from "./time-limit.js";
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

/** Runs one check on `content` and builds its result; `next` is the content after its transform. */
export async function runCheck(
  run: PhaseRun,
  guardrail: Guardrail,
  { config, slot, check }: EnabledCheck,
  phaseContent: Content,
  checkSignal: AbortSignal | undefined,
): Promise<{ result: CheckResult; next?: Content }> {
  const { task } = run;
  const content =
    guardrail.toolArguments === false
      ? withoutToolArguments(run, phaseContent)
      : guardrail.toolResults === false
        ? withoutToolResults(run, phaseContent)
        : phaseContent;
  const created_at = isoNow();
  const started = performance.now();
  const timing: Timing = { end: 0 };
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
