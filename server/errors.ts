/**
 * Errors the gateway answers with, and their envelopes: OpenAI-style on the OpenAI routes and the
 * hook routes, Anthropic-style on `/v1/messages` (spec §7); each envelope is its format's
 * (server/formats/). Every error a client can cause maps to
 * a 4xx with a message that says what was wrong and where; a 500 means a bug in guardgate.
 */
import { ConfigError, type ConfigErrorCode, GuardgateError, type HookResults } from "../core/index.js";
import {
  type CodeWithStatus,
  CONFIG_ERROR_STATUS,
  GATEWAY_ERRORS,
  type GatewayErrorCode,
  type GatewayStatusCode,
  gatewayStatus,
  STORE_ERRORS,
} from "./error-codes.js";
import { StoreError } from "./store/errors.js";
import { isBusy, storeBusy } from "./store/sqlite/lock-wait.js";
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

/** Fastify's own client errors, by code, with the code guardgate reports (its status is the table's). */
const FASTIFY_CODES: Record<string, { code: GatewayStatusCode; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: "body_too_large" },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: "unsupported_media_type",
    message: "the body must be JSON with content-type: application/json",
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: "invalid_json", message: "the body is empty; send a JSON object" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: "invalid_content_length" },
};

/** Seconds a client is asked to wait while the store cannot be reached. */
export const STORE_RETRY_AFTER_SECONDS = 5;
/** Seconds a client is asked to wait while another connection holds the SQLite file's write lock. */
export const STORE_BUSY_RETRY_AFTER_SECONDS = 1;

/** The store codes that are answers of their own (503), with the seconds their retry-after asks for. */
const STORE_REFUSALS: Record<StoreRefusalCode, { seconds: number; message: string }> = {
  store_unavailable: {
    seconds: STORE_RETRY_AFTER_SECONDS,
    message: `the store (Postgres) cannot be reached; try again in ${STORE_RETRY_AFTER_SECONDS} s`,
  },
  store_busy: {
    seconds: STORE_BUSY_RETRY_AFTER_SECONDS,
    message: `the store is locked by another process writing to it; try again in ${STORE_BUSY_RETRY_AFTER_SECONDS} s`,
  },
};

/** A store code with a status of its own. */
type StoreRefusalCode = CodeWithStatus<typeof STORE_ERRORS>;

function isStoreRefusal(code: string): code is StoreRefusalCode {
  return Object.hasOwn(STORE_REFUSALS, code);
}

/** The retry-after, in seconds, of an answer with `code`, when it is a store refusal (503). */
export function storeRetryAfter(code: string): number | undefined {
  return isStoreRefusal(code) ? STORE_REFUSALS[code].seconds : undefined;
}

/**
 * The answer while the store cannot be reached or stays locked: 503, naming the store but not its
 * address (the cause, with the address, is in the process log).
 */
export function storeUnavailable(error: StoreError): Refusal | undefined {
  const { code } = error;
  return isStoreRefusal(code) ? { status: STORE_ERRORS[code].status, code, message: STORE_REFUSALS[code].message } : undefined;
}

/** How a request was refused: what its answer and its log record say. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** Maps any error thrown while handling a request to a status, code and message. */
export function describeError(error: unknown, bodyLimit: number): Refusal {
  if (error instanceof GatewayError) return { status: error.status, code: error.code, message: error.message };
  // A lock met outside the store's own waits (lock-wait.ts) is a 503 all the same, never a 500.
  const store =
    error instanceof StoreError ? storeUnavailable(error) : isBusy(error) ? storeUnavailable(storeBusy(error)) : undefined;
  if (store) return store;
  if (error instanceof ConfigError) return { status: CONFIG_ERROR_STATUS, code: error.code, message: error.message };
  const e = error as { code?: string; statusCode?: number; message?: string };
  const known = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (known) {
    const message =
      known.code === "body_too_large" ? `the body is larger than the limit of ${bodyLimit} bytes` : (known.message ?? e.message);
    return { status: GATEWAY_ERRORS[known.code].status, code: known.code, message: message ?? "bad request" };
  }
  if (e instanceof SyntaxError || (e.statusCode === 400 && /JSON/i.test(e.message ?? ""))) {
    return {
      status: GATEWAY_ERRORS.invalid_json.status,
      code: "invalid_json",
      message: `the body is not valid JSON: ${e.message}`,
    };
  }
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return { status: e.statusCode, code: e.code?.toLowerCase() ?? "bad_request", message: e.message ?? "bad request" };
  }
  return {
    status: GATEWAY_ERRORS.internal_error.status,
    code: "internal_error",
    message: "guardgate failed to handle the request; the error is in its log",
  };
}
