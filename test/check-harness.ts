/**
 * Runs one check the way the engine does, without an engine: parameters validated against the
 * check's schema with defaults applied, the load-time `validate` hook, then `run` on a context
 * built from a text or a body.
 */
import { bodyForText } from "../cli/check.js";
import { locateText } from "../core/content.js";
import { compileParameterSchema } from "../core/parameters.js";
import type { CheckContext, CheckDefinition, CheckOutcome } from "../core/plugin-api.js";
import type { RequestType, Side } from "../core/types.js";

/** Where the check runs and on what; the text is located in the body as the engine does. */
export interface ContextOptions {
  side?: Side;
  requestType?: RequestType;
  request?: unknown;
  response?: unknown;
  metadata?: Record<string, string>;
}

/** Validates parameters like the registry does; throws on a schema error or a `validate` problem. */
export function prepareParameters<P>(check: CheckDefinition<P>, parameters: Record<string, unknown>): P {
  const validate = compileParameterSchema(check.parameters);
  const copy = structuredClone(parameters);
  if (!validate(copy)) throw new Error(`parameters: ${JSON.stringify(validate.errors)}`);
  const problem = check.validate?.(copy as P);
  if (problem) throw new Error(`${problem.parameter ?? "parameters"}: ${problem.message}`);
  return copy as P;
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
export async function runCheck<P>(
  check: CheckDefinition<P>,
  text: string | undefined,
  parameters: Record<string, unknown>,
  options: ContextOptions = {},
): Promise<CheckOutcome> {
  return check.run(contextFor(text, options), prepareParameters(check, parameters));
}
