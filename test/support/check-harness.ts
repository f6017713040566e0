/**
 * Runs one check the way the engine does — parameters validated against the check's schema with
 * defaults applied, runner options (credentials, timeout) taken out — but with a context the test
 * writes, so a test can look at the outcome or the thrown error directly.
 */
import type { CheckContext, CheckDefinition, CheckOutcome } from "../../core/plugin-api.js";
import { CheckRegistry } from "../../core/registry.js";
import type { CheckConfig, Side } from "../../core/types.js";

/** A context with neutral values; `overrides` win. */
export function checkContext(overrides: Partial<CheckContext> = {}): CheckContext {
  const text = overrides.text ?? "";
  return {
    guardrailId: "gr-test",
    side: "input",
    requestType: "chatComplete",
    text,
    request: { model: "gpt-4o", messages: [{ role: "user", content: text }] },
    metadata: {},
    headers: {},
    signal: new AbortController().signal,
    settings: {},
    ...overrides,
  };
}

/** Validates parameters as a config load would; throws the ConfigError a bad config gets. */
export function prepareCheck(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any check's parameter type
  check: CheckDefinition<any>,
  parameters: Record<string, unknown>,
  side: Side = "input",
): CheckConfig {
  const registry = new CheckRegistry();
  registry.register({ id: "t", class: "custom", apiVersion: 1, checks: [check] }, "a test");
  return registry.prepareCheck({ id: `t.${check.id}`, parameters }, side, {
    path: "check",
    parametersPath: "check.parameters",
    idPath: "check.id",
  });
}

/** Prepares the parameters, then runs the check with the given context. */
export async function runCheck(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any check's parameter type
  check: CheckDefinition<any>,
  parameters: Record<string, unknown>,
  context: Partial<CheckContext> = {},
): Promise<CheckOutcome> {
  const config = prepareCheck(check, parameters, context.side ?? "input");
  const full = checkContext({ ...(config.credentials && { credentials: config.credentials }), ...context });
  return check.run(full, config.parameters);
}
