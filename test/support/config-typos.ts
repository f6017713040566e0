/**
 * Misspelt config keys as users write them, each with the key it means: the typos that once
 * switched a guardrail off silently, for tests at every place a config is read.
 */
export const CONFIG_TYPOS: ReadonlyArray<readonly [typo: string, meant: string]> = [
  ["input_guardrail", "input_guardrails"],
  ["before_request_hook", "before_request_hooks"],
  ["beforeRequestHook", "before_request_hooks"],
  ["inputGuardrails", "input_guardrails"],
  ["overide_params", "override_params"],
];
