/**
 * Errors of outbound calls. Each carries a stable `code`; messages name the method and the URL
 * without its query string (which may carry a token).
 */
import type { CheckErrorCode } from "../error-codes.js";
import { GuardgateError } from "../errors.js";

/** Stable codes of outbound failures (their meanings are in core/error-codes.ts). */
export type OutboundErrorCode = Extract<CheckErrorCode, `outbound_${string}`>;

/** An outbound call that could not be made or did not complete. */
export class OutboundError extends GuardgateError {
  declare readonly code: OutboundErrorCode;
  constructor(code: OutboundErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    // A time-out reads like every other time-out in check results.
    if (code === "outbound_timeout") this.name = "TimeoutError";
  }
}

/** A URL as it may appear in messages and results: no credentials, no query, no fragment. */
export function displayUrl(url: string | URL): string {
  try {
    const u = new URL(String(url));
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}
