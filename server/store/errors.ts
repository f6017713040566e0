/**
 * Errors of the store and of the management rules above it. Each has a stable code and the HTTP
 * status the admin API answers with, and a message that says what was wrong and where.
 */
import { type ConfigErrorCode, GuardgateError } from "../../core/index.js";
import type { ManagementErrorCode, StoreErrorCode } from "../error-codes.js";

/** The store cannot open or is inconsistent (wrong secret key, newer schema, unreadable file). */
export class StoreError extends GuardgateError {
  declare readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A management request that cannot be done; `status` is its HTTP answer. */
export class ManagementError extends GuardgateError {
  readonly status: number;
  declare readonly code: ManagementErrorCode | ConfigErrorCode;
  /** `code` is a management code, or the engine's code of a config or guardrail it refuses. */
  constructor(status: number, code: ManagementErrorCode | ConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = status;
  }
}

/** 404: the record does not exist, or the caller may not see it (the two are not told apart). */
export function notFound(what: string): ManagementError {
  return new ManagementError(404, "not_found", `${what} does not exist`);
}

/** 409: the record clashes with one that exists. */
export function conflict(message: string, code: ManagementErrorCode = "conflict"): ManagementError {
  return new ManagementError(409, code, message);
}

/** 403: the caller's role or plan does not allow it. */
export function forbidden(message: string, code: ManagementErrorCode = "forbidden"): ManagementError {
  return new ManagementError(403, code, message);
}

/** 400: the request is not valid. */
export function invalid(message: string, code: ManagementErrorCode | ConfigErrorCode = "invalid_request"): ManagementError {
  return new ManagementError(400, code, message);
}
