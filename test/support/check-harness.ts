/**
 * Runs one check the way the engine does, without an engine: parameters validated by a registry
 * against the check's schema (defaults applied, the load-time `validate` hook, runner options such
 * as credentials and timeout taken out), then `run` on a context the test writes or one built from
 * a text. Tests look at the outcome or the thrown error directly.
 */
import {
  bodyForText,
  type CheckConfig,
  type CheckContext,
  type CheckDefinition,
  type CheckOutcome,
  CheckRegistry,
  locateText,
  type RequestType,
  type Side,
} from "../../index.js";

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

/** Where the check runs and on what; the text is located in the body as the engine does. */
export interface ContextOptions {
  side?: Side;
  requestType?: RequestType;
  request?: unknown;
  response?: unknown;
  metadata?: Record<string, string>;
}

/** Validates parameters as the registry does and returns them with defaults applied. */
export function prepareParameters<P>(check: CheckDefinition<P>, parameters: Record<string, unknown>): P {
  return prepareCheck(check, parameters).parameters as P;
}

/** A check context for a text (or a given body) on one side. */
export function contextFor(text: string | undefined, options: ContextOptions = {}): CheckContext {
  const side = options.side ?? "input";
  const requestType = options.requestType ?? "chatComplete";
  const request =
    options.request ??
    (side === "input" ? bodyForText("input", requestType, text ?? "") : { messages: [{ role: "user", content: "hi" }] });
  const response = options.response ?? (side === "output" ? bodyForText("output", requestType, text ?? "") : undefined);
  const located = locateText(side, requestType, side === "input" ? request : response);
  return {
    guardrailId: "test",
    side,
    requestType,
    text: located.text,
    request,
    response,
    metadata: options.metadata ?? {},
    headers: {},
    signal: new AbortController().signal,
    settings: {},
  };
}

/** Runs a check on a text (or body) with parameters prepared as the registry prepares them. */
export async function runOnText<P>(
  check: CheckDefinition<P>,
  text: string | undefined,
  parameters: Record<string, unknown>,
  options: ContextOptions = {},
): Promise<CheckOutcome> {
  return check.run(contextFor(text, options), prepareParameters(check, parameters));
}
