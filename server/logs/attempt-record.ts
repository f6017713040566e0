/**
 * The parts of a request-log record that the console reads as they are: each attempt and the
 * `hook_results` it ran. Types only, importing nothing with a runtime, so the console's browser
 * build type-checks against them (server/logs/view.ts) without compiling the server.
 */
import type { GuardrailResult } from "../../core/index.js";

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
  /** What the provider's own content filter said of this attempt, when it has one and said something. */
  provider_filters?: ProviderFilters;
}

/** One category's verdict of a provider's content filter: the worst seen over the answer. */
export interface FilterVerdict {
  /** Whether the filter blocked or cut text for this category. */
  filtered: boolean;
  /** The severity or probability the filter gave (`safe`, `low`, `medium`, `high`, …). */
  severity?: string;
  /** For detectors without a severity (jailbreak, protected material): whether it found something. */
  detected?: boolean;
}

/**
 * What a provider's own content filter said of a call (docs/providers.md, "Content filter results
 * in the log"): the filter's name, whether it blocked or cut anything, and each category's worst
 * verdict on the prompt and on the completion. Kept small: verdicts, never the filtered text.
 */
export interface ProviderFilters {
  /** Which filter spoke, e.g. `azure_content_filter`. */
  source: string;
  /** True when anything was blocked or cut: a filtered category, a `content_filter` finish, a refused prompt. */
  filtered: boolean;
  prompt?: Record<string, FilterVerdict>;
  completion?: Record<string, FilterVerdict>;
}
