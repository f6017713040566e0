/**
 * What the stream relay and the output side say to each other: the relay's options, what a held
 * stream's first check decided, and how a stream ended (the pipeline awaits it and builds the record
 * from it). Declared apart from the relay so the relay's module holds its behaviour only.
 */
import type { Evaluation, GuardrailStatus, StreamMode } from "../../core/index.js";
import type { FormatName } from "../formats/index.js";
import type { Leaf } from "./leaf.js";
import type { Phases } from "./phases.js";

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

/** Options of a relay. */
export interface RelayOptions {
  /** The target relayed: its output guardrails, how its stream is held, the request they read. */
  leaf: Leaf;
  format: FormatName;
  source: AsyncIterable<Buffer>;
  /** Runs the output side's checks, on the whole text and on each window (`Phases.windowGuardrails`). */
  phases: Phases;
  /** Check time the stream may use; default DEFAULT_STREAM_CHECK_BUDGET_MS. */
  checkBudgetMs?: number;
}
