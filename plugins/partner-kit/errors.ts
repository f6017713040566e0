/**
 * Failures of calls to third-party guardrail services. Each names the service and what happened,
 * carries a stable `code`, and becomes a check error: `fail_on_error` decides what it means for
 * the guardrail, and a vendor's failure is never read as a passing verdict.
 */
import { type CoreErrorInfo, GuardgateError } from "../../core/index.js";

/** Stable codes of partner failures, as a table (docs/errors.md is generated from it). */
export const PARTNER_ERRORS = {
  partner_credentials_invalid: { meaning: "the credentials lack a field the call needs, or hold one that cannot be used" },
  partner_unauthorized: { meaning: "HTTP 401: the service refused the credentials" },
  partner_forbidden: { meaning: "HTTP 403: the credentials are valid but may not do this" },
  partner_rate_limited: { meaning: "HTTP 429: the service is rate limiting; `retryAfter` says for how long when it said" },
  partner_unavailable: { meaning: "HTTP 5xx: the service failed" },
  partner_status: { meaning: "any other status that is not a success (400, 404, 422, a redirect)" },
  partner_timeout: { meaning: "no complete answer within the time limit" },
  partner_network: { meaning: "the call could not be made or completed (refused address, connection reset, oversized answer)" },
  partner_answer_invalid: { meaning: "the answer is not JSON, or lacks a field the verdict needs" },
} as const satisfies Record<string, CoreErrorInfo>;

/** A code of PartnerError. */
export type PartnerErrorCode = keyof typeof PARTNER_ERRORS;

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
