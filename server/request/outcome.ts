/**
 * What one attempt at a target yields: a JSON answer (including gateway errors, so fallback and
 * retry can look at their status like any other) or an open stream.
 */
import type { Evaluation, HookResults } from "../../core/index.js";
import type { AttemptRecord } from "../logs/record.js";
import { hookResultsJson } from "../logs/record-json.js";
import type { CallFacts } from "../providers/kind.js";
import type { StreamEnforcer } from "./stream-enforcer.js";
import type { Leaf } from "./leaf.js";

export type { Leaf } from "./leaf.js";

/** A complete, non-streamed answer. */
export interface JsonOutcome {
  kind: "json";
  status: number;
  /** The JSON body, or undefined when `raw` carries a non-JSON upstream error body. */
  body?: unknown;
  raw?: string;
  contentType?: string;
  headers: Record<string, string>;
  leaf?: Leaf;
  /** Synchronous results of this attempt (both sides), for the log. */
  hooks?: HookResults;
  /** The response body the client got, without hook_results: what async output guardrails see. */
  output?: Record<string, unknown>;
  retryAfterMs?: number;
  /** The output side's status, when it ran: a 246 is worth retrying only when the output caused it. */
  outputStatus?: 200 | 246 | 446;
  cacheStatus?: "HIT" | "MISS";
  error?: { code: string; message: string };
  /** What the provider's kind noted of the call for the log (its content filter's verdicts). */
  facts?: CallFacts;
  /** The attempts that led to this answer, oldest first, each as the record keeps it. */
  attempts?: AttemptRecord[];
}

/** A streamed answer whose headers are decided and whose events are yet to flow. */
export interface StreamOutcome {
  kind: "stream";
  status: number;
  headers: Record<string, string>;
  relay: StreamEnforcer;
  discard(): void;
  leaf: Leaf;
  /** The output side's status when a held stream's first check decided it before the first byte. */
  outputStatus?: 200 | 246 | 446;
  /** What the provider's kind notes of the call for the log, complete once the stream has ended. */
  facts?: CallFacts;
  /** The attempts that led to this answer, oldest first, each as the record keeps it. */
  attempts?: AttemptRecord[];
}

/**
 * A walk over targets given up because the client left (a retry wait or an upstream call
 * aborted): the attempts made so far, for the record of the 499.
 */
export class Abandoned extends Error {
  constructor(
    override readonly cause: unknown,
    readonly attempts: AttemptRecord[],
  ) {
    super("the client closed the connection");
  }
}

export type Outcome = JsonOutcome | StreamOutcome;

/** The `hook_results` of a target's synchronous guardrails, or undefined when it has none (spec §2.2). */
export function hookResultsOf(leaf: Leaf | undefined, after: Evaluation | undefined): HookResults | undefined {
  if (!leaf || (!leaf.node.input.sync.length && !leaf.node.output.sync.length)) return undefined;
  return { before_request_hooks: leaf.input?.results ?? [], after_request_hooks: after?.results ?? [] };
}

/**
 * The JSON text of `{ ...body, hook_results }` made from the text `body` was parsed from: the
 * upstream's bytes, with the member added before the closing brace (where the spread puts it).
 */
export function appendHookResults(text: string, body: Record<string, unknown>, hooks: HookResults): string {
  const end = text.lastIndexOf("}");
  // Written through the record's writer, which keeps each result's text: the record reuses it.
  const member = `"hook_results":${hookResultsJson(hooks) ?? "null"}`;
  return `${text.slice(0, end)}${Object.keys(body).length ? "," : ""}${member}${text.slice(end)}`;
}

/**
 * The status retry looks at. Retry repeats the upstream call and the output side, never the input
 * side, so a 246 that only the input side caused cannot improve.
 */
export function retryStatus(outcome: Outcome): number {
  if (outcome.status !== 246) return outcome.status;
  return outcome.outputStatus === 246 ? 246 : 200;
}

/** Whether an HTTP status is a success (2xx). */
export function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Frees what an outcome holds when it is not the one answered. */
export function discardOutcome(outcome: Outcome): void {
  if (outcome.kind === "stream") outcome.discard();
}
