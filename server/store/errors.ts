/**
 * Errors of the store and of the management rules above it. Each has a stable code and a message
 * that says what was wrong and where; a management error also the HTTP status the admin API answers
 * with, read from its code's line in error-codes.ts.
 */
import { type ConfigErrorCode, GuardgateError } from "../../core/index.js";
import {
  type CodeWithStatus,
  type MANAGEMENT_ERRORS,
  type ManagementErrorCode,
  type ManagementStatusCode,
  managementStatus,
  type StoreErrorCode,
} from "../error-codes.js";

/** The store cannot open or is inconsistent (wrong secret key, newer schema, unreadable file). */
export class StoreError extends GuardgateError {
  declare readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A management request that cannot be done; `status`, its HTTP answer, is its code's line in error-codes.ts. */
export class ManagementError extends GuardgateError {
  readonly status: number;
  declare readonly code: ManagementErrorCode | ConfigErrorCode;
  /** `code` is a management code, or the engine's code of a config or guardrail it refuses (a 400). */
  constructor(code: ManagementStatusCode | ConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.status = managementStatus(code);
  }
}

/** 404: the record does not exist, or the caller may not see it (the two are not told apart). */
export function notFound(what: string): ManagementError {
  return new ManagementError("not_found", `${what} does not exist`);
}

/** 409: the record clashes with one that exists. */
export function conflict(message: string, code: CodeWithStatus<typeof MANAGEMENT_ERRORS, 409> = "conflict"): ManagementError {
  return new ManagementError(code, message);
}

/** 403: the caller's role or plan does not allow it. */
export function forbidden(message: string, code: CodeWithStatus<typeof MANAGEMENT_ERRORS, 403> = "forbidden"): ManagementError {
  return new ManagementError(code, message);
}

/** 400: the request is not valid. */
export function invalid(
  message: string,
  code: CodeWithStatus<typeof MANAGEMENT_ERRORS, 400> | ConfigErrorCode = "invalid_request",
): ManagementError {
  return new ManagementError(code, message);
}
