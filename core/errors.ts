/**
 * Typed errors with stable codes (listed in error-codes.ts). A user-facing error says what was
 * wrong and where.
 */
import type { CheckErrorCode, ConfigErrorCode, PluginErrorCode } from "./error-codes.js";

/** Base class: every error guardgate raises on purpose carries a stable `code`. */
export class GuardgateError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * A configuration that cannot be loaded: malformed JSON, an unknown guardrail or check id, a
 * check on a side it does not support, parameters failing their schema. `path` names the place
 * in the config, e.g. `input_guardrails[0].checks[1].parameters.maxWords`.
 */
export class ConfigError extends GuardgateError {
  readonly path: string;
  declare readonly code: ConfigErrorCode;
  constructor(path: string, problem: string, code: ConfigErrorCode = "config_invalid") {
    super(code, path ? `${path}: ${problem}` : problem);
    this.path = path;
  }
}

/** A plugin that cannot be loaded or registered. */
export class PluginError extends GuardgateError {
  declare readonly code: PluginErrorCode;
  constructor(message: string, code: PluginErrorCode = "plugin_invalid", options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** A check that ran longer than its time limit. The name is part of the result contract. */
export class CheckTimeoutError extends GuardgateError {
  constructor(checkId: string, timeoutMs: number) {
    super("check_timeout", `check ${checkId} exceeded its time limit of ${timeoutMs} ms`);
    this.name = "TimeoutError";
  }
}

/** A check whose run was cancelled because its request no longer needs the result. */
export class CheckAbortedError extends GuardgateError {
  constructor(checkId: string, reason?: string) {
    super("check_aborted", `check ${checkId} was cancelled${reason ? `: ${reason}` : ""}`);
    this.name = "AbortError";
  }
}

/** A check that reads the text met a body with no text to read. The name is what results show. */
export class NoTextError extends GuardgateError {
  constructor(side: "input" | "output", requestType: string) {
    super(
      "no_text",
      `the ${side === "input" ? "request" : "response"} of this ${requestType} call has no text for the check to read${
        side === "output" ? " (an embedding, or an answer with only tool calls)" : ""
      }; the check did not run`,
    );
    this.name = "NoTextError";
  }
}

/**
 * A check's credentials are missing or do not match its plugin's credentials schema. Raised when
 * the check runs (integration credentials arrive with the request), so it is a check error.
 */
export class CredentialsError extends GuardgateError {
  constructor(message: string) {
    super("credentials_invalid", message);
  }
}

/**
 * A check that did not report because the worker thread running its phase was stopped (another
 * check of the phase overran its limit) or failed (crash, out of memory). The name is what results show.
 */
export class CheckLostError extends GuardgateError {
  constructor(checkId: string, reason: string, code: CheckErrorCode = "check_lost") {
    super(code, `check ${checkId} did not report: ${reason}`);
    this.name = "WorkerError";
  }
}
