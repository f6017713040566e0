/**
 * Runs one check of a fresh engine on a text, as a guardrail of a single check would, and returns
 * its CheckResult. For unit tests of checks.
 */
import { type CheckResult, createEngine, type Engine, type Side } from "../../index.js";

let shared: Promise<Engine> | undefined;

/** Evaluates `checkId` with `parameters` on `text` (as the last user message, or the reply). */
export async function runCheck(
  checkId: string,
  parameters: Record<string, unknown>,
  text: string,
  side: Side = "input",
): Promise<CheckResult> {
  shared ??= createEngine();
  const engine = await shared;
  const request = { messages: [{ role: "user", content: side === "input" ? text : "question" }] };
  const response = { choices: [{ index: 0, message: { role: "assistant", content: text } }] };
  const evaluation = await engine.evaluate({
    side,
    requestType: "chatComplete",
    request,
    ...(side === "output" && { response }),
    guardrails: [{ checks: [{ id: checkId, parameters }] }],
  });
  const result = evaluation.results[0]?.checks[0];
  if (!result) throw new Error(`no result for ${checkId}`);
  return result;
}
