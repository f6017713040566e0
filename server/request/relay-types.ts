/**
 * What the stream relay and the call stage say to each other: what the relay reads of the target
 * it relays, its options, what a held stream's first check decided, and how a stream ended (for
 * the log). Declared apart from the relay so the relay's module holds its behaviour only.
 */
import type { Evaluation, GuardrailResult, GuardrailStatus, RequestType, StreamMode } from "../../core/index.js";
import type { FormatName } from "../formats/index.js";

/** Why a stream that had begun was stopped by the gateway. */
export interface StreamStop {
  /** The denying guardrails, or empty when a redaction could not be honoured. */
  guardrails: string[];
  /** Characters of text the client had received. */
  released_chars: number;
  mode: StreamMode;
}

/** How a relayed stream ended, for the log. */
export interface RelaySummary {
  /**
   * The text the client received: of a held stream, what was released (redacted as released,
   * nothing a deny stopped); of a stream passed through, all of it.
   */
  text: string;
  /** The response body the text the client received amounts to. */
  body: Record<string, unknown>;
  /** The text the upstream sent, for a usage estimate when the upstream reported none. */
  upstreamText: string;
  /** The share of the stream's event bytes `text` was gathered from, when not all (a stream passed through). */
  textShare?: number;
  output?: Evaluation;
  outputSkipped: boolean;
  error?: unknown;
  stop?: StreamStop;
}

/** What a held stream's first check decided, before any byte was sent. */
export type Opening = { kind: "denied"; output: Evaluation } | { kind: "open"; outputStatus?: GuardrailStatus };

/**
 * What the relay reads of the target it relays (the call's `Leaf` has all of it): its guardrail
 * lists, how its stream is held, its request type and its input side's results. Declared here so
 * the relay, below the call on the import ladder, depends on no stage above it.
 */
export interface RelayedTarget {
  node: {
    input: { sync: readonly unknown[] };
    output: { sync: readonly unknown[]; async: readonly unknown[] };
    stream: { mode: StreamMode; window: number; tail: number };
  };
  phase: { requestType: RequestType };
  input?: { results: GuardrailResult[] };
}

/** Options of a relay. */
export interface RelayOptions {
  leaf: RelayedTarget;
  format: FormatName;
  source: AsyncIterable<Buffer>;
  /** Runs the synchronous output side on a body carrying the streamed text. */
  evaluateOutput: (body: Record<string, unknown>) => Promise<Evaluation | undefined>;
  /** Runs the checks of one window (`Phases.windowGuardrails`) on a body carrying its text. */
  evaluateWindow: (body: Record<string, unknown>) => Promise<Evaluation | undefined>;
  /** Check time the stream may use; default DEFAULT_STREAM_CHECK_BUDGET_MS. */
  checkBudgetMs?: number;
}
