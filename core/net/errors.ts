/**
 * Errors of outbound calls. Each carries a stable `code`; messages name the method and the URL
 * without its query string (which may carry a token).
 */
import { GuardgateError } from "../errors.js";

/** Stable codes of outbound failures. */
export type OutboundErrorCode =
  | "outbound_url_invalid"
  | "outbound_address_refused"
  | "outbound_timeout"
  | "outbound_aborted"
  | "outbound_response_too_large"
  | "outbound_network";

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
