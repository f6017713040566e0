/**
 * Errors the gateway answers with, and their envelopes: OpenAI-style on the OpenAI routes and the
 * hook routes, Anthropic-style on `/v1/messages` (spec §7); each envelope is its format's
 * (server/formats/). Every error a client can cause maps to
 * a 4xx with a message that says what was wrong and where; a 500 means a bug in guardgate. How any
 * error thrown is answered, the store's among them, is describe-error.ts, above the store.
 */
import { type ConfigErrorCode, GuardgateError, type HookResults } from "../core/index.js";
import { GATEWAY_ERRORS, type GatewayErrorCode, type GatewayStatusCode, gatewayStatus } from "./error-codes.js";
import type { DenialFields } from "./formats/format.js";
import { FORMATS, type FormatName } from "./formats/index.js";

/** Which envelope a route answers errors in. */
export type ErrorStyle = FormatName;

/**
 * An error with the HTTP status it answers with, read from its code's line in error-codes.ts, so a
 * throw names only the code and the message.
 */
export class GatewayError extends GuardgateError {
  readonly status: number;
  declare readonly code: GatewayErrorCode | ConfigErrorCode;
  /** `code` is a gateway code, or the engine's code of a config it refuses (a 400). */
  constructor(code: GatewayStatusCode | ConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = gatewayStatus(code);
  }
}

/** The error body for a status, in the route's style; `hookResults` is added when guardrails ran. */
export function errorBody(
  style: ErrorStyle,
  status: number,
  code: string | null,
  message: string,
  options: { type?: string; param?: string | null; hookResults?: HookResults; denial?: DenialFields } = {},
): Record<string, unknown> {
  const body = FORMATS[style].errorBody({
    status,
    code,
    message,
    ...(options.type !== undefined && { type: options.type }),
    ...(options.param !== undefined && { param: options.param }),
    ...(options.denial && { denial: options.denial }),
  });
  if (options.hookResults) body.hook_results = options.hookResults;
  return body;
}

/** The header naming the guardrails that denied a 446: their ids, each URI-encoded, comma-separated. */
export const DENIED_BY_HEADER = "x-gateway-denied-by";

/** Which synchronous guardrails denied one side, and the checks that failed in them. */
export function denialOf(side: "input" | "output", hookResults: HookResults): DenialFields {
  const list = side === "input" ? hookResults.before_request_hooks : hookResults.after_request_hooks;
  const denying = list.filter((r) => !r.verdict && r.deny && !r.async);
  const checks = new Set(denying.flatMap((r) => r.checks.filter((c) => !c.verdict).map((c) => c.id)));
  return { side, guardrails: denying.map((r) => r.id), checks: [...checks] };
}

/** The headers of a 446: `x-gateway-denied-by` (ids may hold any character, so each is URI-encoded). */
export function deniedHeaders(denial: DenialFields): Record<string, string> {
  return { [DENIED_BY_HEADER]: denial.guardrails.map(encodeURIComponent).join(",") };
}

/**
 * The 446 body (docs/spec-notes.md, "The peer gateway"): `type: "hooks_failed"`, code null, with
 * the hook results; `error` also names the side, the guardrails that denied and their failed checks.
 */
export function deniedBody(style: ErrorStyle, side: "input" | "output", hookResults: HookResults): Record<string, unknown> {
  const denial = denialOf(side, hookResults);
  const what = side === "input" ? "The request was denied by input guardrails" : "The response was denied by output guardrails";
  const message = `${what} (${denial.guardrails.join(", ")}); see hook_results for the checks that failed.`;
  const { status, type } = GATEWAY_ERRORS.hooks_failed;
  return errorBody(style, status, null, message, { type, hookResults, denial });
}

/** How a request was refused: what its answer and its log record say. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}
