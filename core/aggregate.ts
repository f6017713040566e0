/**
 * From check results to a guardrail's verdict and feedback, and from guardrail results to the
 * status of a synchronous evaluation (spec §2.4, §3).
 */
import type { CheckResult, Feedback, FeedbackConfig, Guardrail, GuardrailResult, GuardrailStatus } from "./types.js";

/** A check counts against its guardrail when it failed, or errored with `fail_on_error`. */
export function checkFails(check: CheckResult): boolean {
  if (check.error !== undefined) return check.fail_on_error;
  return !check.verdict;
}

/** A guardrail passes when every enabled check passed, or errored without `fail_on_error`. */
export function guardrailVerdict(checks: readonly CheckResult[]): boolean {
  return !checks.some(checkFails);
}

/**
 * The configured feedback for the outcome, with the ids of the checks that passed, failed and
 * errored joined with ", "; null when no feedback is configured for that outcome.
 */
export function buildFeedback(guardrail: Guardrail, checks: readonly CheckResult[], verdict: boolean): Feedback | null {
  const configured: FeedbackConfig | undefined = verdict ? guardrail.onSuccess : guardrail.onFail;
  if (!configured) return null;
  const ids = (keep: (c: CheckResult) => boolean) =>
    checks
      .filter(keep)
      .map((c) => c.id)
      .join(", ");
  // Field order as the spec shows it: value, weight, metadata.
  const feedback: Partial<Feedback> = {};
  if (configured.value !== undefined) feedback.value = configured.value;
  if (configured.weight !== undefined) feedback.weight = configured.weight;
  feedback.metadata = {
    ...(configured.metadata ?? {}),
    successfulChecks: ids((c) => c.error === undefined && c.verdict),
    failedChecks: ids((c) => c.error === undefined && !c.verdict),
    erroredChecks: ids((c) => c.error !== undefined),
  };
  return feedback as Feedback;
}

/** The status of an evaluation over its synchronous guardrails (spec §3): 200, 246 or 446. */
export function evaluationStatus(results: readonly GuardrailResult[]): GuardrailStatus {
  let status: GuardrailStatus = 200;
  for (const result of results) {
    if (result.async || result.verdict) continue;
    if (result.deny) return 446;
    status = 246;
  }
  return status;
}
