/**
 * Runs one check through a real engine, as a synchronous guardrail holding that check alone, so a
 * plugin's tests see exactly what the gateway would put in `hook_results`: parameters validated
 * against the schema with defaults applied (a bad one throws the ConfigError a config load
 * would), time limit, credentials and their redaction, error capture and the result's fields.
 */
import { locateText } from "../content.js";
import type { Evaluation } from "../engine.js";
import { GuardgateError } from "../errors.js";
import type { CheckResult } from "../types.js";
import { type AnyCheck, type CheckTestInput, checkRun } from "./check-run.js";

/** A check's result together with the evaluation it came from. */
export interface CheckEvaluation {
  result: CheckResult;
  /** The whole evaluation: status, guardrail result, the request and response after transforms. */
  evaluation: Evaluation;
  /** The evaluated text of the side after any transform. */
  text: string;
}

/**
 * Like testCheck, and also returns the whole evaluation and the evaluated text after the check's
 * transform, for checks that transform.
 */
export async function evaluateCheck(check: AnyCheck, input: CheckTestInput): Promise<CheckEvaluation> {
  const run = await checkRun(check, input);
  try {
    const evaluation = await run.engine.evaluate(run.options);
    const result = evaluation.results[0]?.checks[0];
    if (!result) throw new GuardgateError("no_result", `check ${run.id} produced no result`);
    const body = run.side === "input" ? evaluation.request : evaluation.response;
    return { result, evaluation, text: locateText(run.side, run.requestType, body).text };
  } finally {
    await run.engine.close();
  }
}

/**
 * Runs a check as the engine runs it and returns its CheckResult, field for field as the gateway
 * reports it (spec §2.4). A check that throws yields a result with `error`; parameters that fail
 * the schema make this function throw the ConfigError a config load would throw.
 */
export async function testCheck(check: AnyCheck, input: CheckTestInput): Promise<CheckResult> {
  return (await evaluateCheck(check, input)).result;
}
