/**
 * Any error thrown while handling a request, mapped to its answer: a gateway error to its own
 * status, the store's refusals (unreachable, locked) to a 503 with a retry-after, a config error,
 * fastify's client errors, a body that is not JSON; anything else is a 500 naming no cause (the
 * cause is in the process log). It sits above the store, whose errors it knows, and below every
 * route that answers with it.
 */
import { ConfigError } from "../core/index.js";
import { type CodeWithStatus, CONFIG_ERROR_STATUS, GATEWAY_ERRORS, type GatewayStatusCode, STORE_ERRORS } from "./error-codes.js";
import { GatewayError, type Refusal } from "./errors.js";
import { StoreError } from "./store/errors.js";
import { isBusy, storeBusy } from "./store/sqlite/lock-wait.js";

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
