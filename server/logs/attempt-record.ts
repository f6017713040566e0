/**
 * The parts of a request-log record that the console reads as they are: each attempt and the
 * `hook_results` it ran. Types only, importing nothing with a runtime, so the console's browser
 * build type-checks against them (server/logs/view.ts) without compiling the server.
 */
import type { GuardrailResult } from "../../core/types.js";

/** Both sides' guardrail results, in the `hook_results` shape (spec §6). */
export interface HookResultsRecord {
  before_request_hooks: GuardrailResult[];
  after_request_hooks: GuardrailResult[];
}

/** One upstream call (or cache lookup, or mock answer) made for a request. */
export interface AttemptRecord {
  /** Config path of the target, `""` for the root. */
  target: string;
  provider?: string;
  model?: string;
  status: number;
  latency_ms: number;
  cache_status?: "HIT" | "MISS";
  error?: { code: string; message: string };
  /**
   * The attempt ended before any upstream call (an input denial, a refused target): its latency is
   * the gateway's own, never counted as upstream latency.
   */
  before_upstream?: true;
  /**
   * The synchronous guardrail results of this attempt (spec §1 rule 8: every result is recorded):
   * the input side where it ran, and this attempt's output side. The record's own `hook_results`
   * stay those of the final attempt.
   */
  hook_results?: HookResultsRecord;
}
