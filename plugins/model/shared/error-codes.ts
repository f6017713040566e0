/**
 * The model plugin's error codes, as they appear in a check result's `error` (docs/errors.md is
 * generated from this table). Each error class names its code with `satisfies ModelErrorCode`.
 */
import type { CoreErrorInfo } from "../../../core/index.js";

/** Codes of model checks that could not decide. */
export const MODEL_ERRORS = {
  model_invalid: {
    meaning: "a model folder or weights file is missing, unreadable, or not what the check needs; the message names the file",
  },
  judge_unreachable: { meaning: "model.llmJudge names a provider the gateway cannot resolve or call" },
  judge_call_failed: { meaning: "the judge's provider answered with an error, or not at all within the time limit" },
  judge_answer_malformed: {
    meaning: "the judge's answer is not the strict JSON verdict the rubric asks for (never read as a pass)",
  },
} as const satisfies Record<string, CoreErrorInfo>;

/** A code of the model plugin. */
export type ModelErrorCode = keyof typeof MODEL_ERRORS;
