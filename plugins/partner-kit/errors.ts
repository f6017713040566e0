/**
 * Failures of calls to third-party guardrail services. Each names the service and what happened,
 * carries a stable `code`, and becomes a check error: `fail_on_error` decides what it means for
 * the guardrail, and a vendor's failure is never read as a passing verdict.
 */
import { GuardgateError } from "../../core/index.js";

/** Stable codes of partner failures. */
export type PartnerErrorCode =
  /** The credentials lack a field the call needs, or hold one that cannot be used. */
  | "partner_credentials_invalid"
  /** HTTP 401: the service refused the credentials. */
  | "partner_unauthorized"
  /** HTTP 403: the credentials are valid but may not do this. */
  | "partner_forbidden"
  /** HTTP 429: the service is rate limiting; `retryAfter` says for how long when it said. */
  | "partner_rate_limited"
  /** HTTP 5xx: the service failed. */
  | "partner_unavailable"
  /** Any other status that is not a success (400, 404, 422, a redirect). */
  | "partner_status"
  /** No complete answer within the time limit. */
  | "partner_timeout"
  /** The call could not be made or completed (refused address, connection reset, oversized answer). */
  | "partner_network"
  /** The answer is not JSON, or lacks a field the verdict needs. */
  | "partner_answer_invalid";

/** A call to a partner service that did not yield a usable answer. */
export class PartnerError extends GuardgateError {
  declare readonly code: PartnerErrorCode;
  /** The HTTP status the service answered with, when it answered. */
  readonly status: number | undefined;
  /** Seconds the service asked to wait before the next call (HTTP 429 `retry-after`), when given. */
  readonly retryAfter: number | undefined;

  constructor(code: PartnerErrorCode, message: string, options: { status?: number; retryAfter?: number; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.retryAfter = options.retryAfter;
  }
}
