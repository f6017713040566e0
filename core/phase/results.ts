/**
 * A guardrail's result from its checks' results (spec §2.4), and the result of a phase whose
 * checks never reported. Both the phase loop and the pool (for a worker that was stopped or
 * crashed) build guardrail results, and must build them the same way.
 */
import { buildFeedback, guardrailVerdict } from "../aggregate.js";
import type { CheckConfig, CheckErrorValue, CheckResult, Guardrail, GuardrailResult } from "../types.js";
import { isoNow } from "./clock.js";
import { checkSlots, type PhaseResult, type PhaseTask } from "./task.js";

/** A guardrail's result from its checks' results: verdict, feedback and deny follow from them. */
export function guardrailResult(
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
