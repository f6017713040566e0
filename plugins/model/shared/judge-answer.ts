import { GuardgateError } from "../../../core/index.js";
import type { ModelErrorCode } from "./error-codes.js";
/**
 * The judge's answer, strictly: a JSON object with exactly `verdict` ("pass" or "fail"), `score`
 * (0–1) and `reason` (a string). Anything else is a malformed answer, an error and never a pass.
 */

/** A judge's valid answer. */
export interface JudgeAnswer {
  verdict: "pass" | "fail";
  score: number;
  reason: string;
}

/** The judge answered, but not in the required form. */
export class JudgeAnswerError extends GuardgateError {
  constructor(message: string) {
    super("judge_answer_malformed" satisfies ModelErrorCode, message);
  }
}

const MAX_REASON = 2_000;

/** Parses and validates the text a judge answered; throws JudgeAnswerError saying what was wrong. */
export function parseJudgeAnswer(text: string): JudgeAnswer {
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch {
    throw new JudgeAnswerError(`the judge's answer is not JSON: ${JSON.stringify(shown)}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new JudgeAnswerError(`the judge's answer is not a JSON object: ${JSON.stringify(shown)}`);
  }
  const answer = value as Record<string, unknown>;
  const extra = Object.keys(answer).filter((k) => k !== "verdict" && k !== "score" && k !== "reason");
  if (extra.length) throw new JudgeAnswerError(`the judge's answer has unexpected keys: ${extra.join(", ")}`);
  if (answer.verdict !== "pass" && answer.verdict !== "fail") {
    throw new JudgeAnswerError(`the judge's "verdict" is ${JSON.stringify(answer.verdict)}, not "pass" or "fail"`);
  }
  if (typeof answer.score !== "number" || !(answer.score >= 0 && answer.score <= 1)) {
    throw new JudgeAnswerError(`the judge's "score" is ${JSON.stringify(answer.score)}, not a number from 0 to 1`);
  }
  if (typeof answer.reason !== "string") throw new JudgeAnswerError(`the judge's "reason" is missing or not a string`);
  return { verdict: answer.verdict, score: answer.score, reason: answer.reason.slice(0, MAX_REASON) };
}
