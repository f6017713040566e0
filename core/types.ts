/**
 * Wire types of guardgate's guardrail results (spec §2.4) and of the values that cross the
 * engine's boundary. Everything here is plain data: it must survive structured clone, because
 * phases run in worker threads. This module imports nothing with a runtime: core/index.console.ts
 * exports it alone to the console's browser build, which type-checks server/logs/view.ts.
 */
/** What kind of work a check does; decides its default time limit. */
export type CheckKind = "deterministic" | "network" | "model";

/** Which side of a request a guardrail validates. */
export type Side = "input" | "output";

/** The guarded endpoint kinds, named as the peer gateway names them. */
export type RequestType = "chatComplete" | "complete" | "embed" | "messages" | "responses";

/** Plan class of a plugin (spec §5): which plans may use its checks. */
export type PluginClass = "BASIC" | "PARTNER" | "PRO" | "custom";

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** Error of a check result: a string or `{name, message}` (spec §2.4). */
export type CheckErrorValue = string | { name: string; message: string };

/** Result of one check, field for field as spec §2.4 lists them. */
export interface CheckResult {
  data: Record<string, unknown>;
  verdict: boolean;
  id: string;
  execution_time: number;
  transformed: boolean;
  created_at: string;
  log: string | null;
  error?: CheckErrorValue;
  fail_on_error: boolean;
}

/** Feedback metadata: the configured keys plus the three check-id lists (spec §2.4). */
export interface FeedbackMetadata {
  [key: string]: unknown;
  successfulChecks: string;
  failedChecks: string;
  erroredChecks: string;
}

/** Feedback object attached to a guardrail result. */
export interface Feedback {
  value?: number;
  weight?: number;
  metadata: FeedbackMetadata;
}

/** Result of one guardrail, field for field as spec §2.4 lists them. */
export interface GuardrailResult {
  verdict: boolean;
  id: string;
  transformed: boolean;
  checks: CheckResult[];
  feedback: Feedback | null;
  execution_time: number;
  async: boolean;
  type: "guardrail";
  created_at: string;
  deny: boolean;
  /** Present (true) for a guardrail in monitor mode; beside the spec's fields, which it leaves as they are. */
  monitor?: boolean;
}

/** `hook_results` of a response (spec §2.4). */
export interface HookResults {
  before_request_hooks: GuardrailResult[];
  after_request_hooks: GuardrailResult[];
}

/** The status a synchronous evaluation yields (spec §3). */
export type GuardrailStatus = 200 | 246 | 446;

/** Configured feedback for one outcome (`on_success` / `on_fail`). */
export interface FeedbackConfig {
  value?: number;
  weight?: number;
  metadata?: Record<string, unknown>;
}

/** One check of a normalised guardrail. */
export interface CheckConfig {
  /** Full id, `<plugin>.<check>`. */
  id: string;
  /** Parameters after schema validation, defaults applied. */
  parameters: Record<string, unknown>;
  enabled: boolean;
  failOnError: boolean;
  /** Credentials given in the parameters; handed to the check, never echoed. */
  credentials?: Record<string, unknown>;
  /** Time limit in milliseconds; absent means the check's default. */
  timeout?: number;
  /** Set when the parameters make the check another kind than it declares (CheckDefinition.configured). */
  kind?: CheckKind;
  /** Set when the parameters make the check need a worker thread (CheckDefinition.configured). */
  runsInPool?: true;
}

/**
 * How an output guardrail holds a streamed answer: `buffer` holds all of it until checked,
 * `window` releases text once the window holding it passed, `after` checks once the text is out.
 */
export type StreamMode = "buffer" | "window" | "after";

/** The stream modes, loosest first. */
export const STREAM_MODES: readonly StreamMode[] = ["after", "window", "buffer"];

/**
 * What a check needs to judge a stream held in `window` mode: `window` when each window with its
 * held-back tail is judged as the whole text would be (what it looks for lies within a window);
 * `whole` when its verdict needs the whole answer (a count, a JSON document, what the text must
 * contain, begin or end with), so it runs once the stream ended.
 */
export type StreamScope = "window" | "whole";

/**
 * A check's stream scope as its definition declares it: fixed, or `window` only when the
 * parameters named in `windowWhen` have the values given there (and `whole` otherwise).
 */
export type StreamScopeRule = StreamScope | { windowWhen: Record<string, unknown> };

/** A guardrail after normalisation: every default decided, every check validated. */
export interface Guardrail {
  id: string;
  name?: string;
  side: Side;
  async: boolean;
  deny: boolean;
  sequential: boolean;
  /** The stream mode the guardrail asks for; absent leaves it to the config and the gateway's defaults. */
  streamMode?: StreamMode;
  /** `tool_arguments: false`: the output text it reads leaves tool-call arguments out. */
  toolArguments?: false;
  /** `tool_results: false`: the input text it reads leaves tool results (tool messages, `function_call_output` items, `tool_result` blocks) out. */
  toolResults?: false;
  checks: CheckConfig[];
  onSuccess?: FeedbackConfig;
  onFail?: FeedbackConfig;
  /** `mode: "monitor"`: runs asynchronously, its verdicts logged and counted, never acted on. */
  monitor?: boolean;
  /** Written out in a config rather than named by a saved record's id: its id is whatever the writer chose. */
  inline?: boolean;
}
