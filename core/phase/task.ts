/**
 * What a phase takes and yields. A phase is one side of one request evaluated against its
 * guardrails; the task and the result are plain data (structured-clone safe), so the same phase
 * runs inline or in a pool worker, and the executors, the pool protocol and the engine share these
 * shapes without depending on how a phase runs.
 */
import type { CheckSettings } from "../plugin-api.js";
import type { Guardrail, GuardrailResult, RequestType, Side } from "../types.js";

/** Everything one phase needs; structured-clone safe. */
export interface PhaseTask {
  side: Side;
  requestType: RequestType;
  request: unknown;
  response?: unknown;
  guardrails: Guardrail[];
  metadata?: Record<string, string>;
  headers?: Record<string, string>;
  model?: string;
  provider?: string;
  /** Credentials per plugin id, from the integrations the service holds. */
  credentials?: Record<string, Record<string, unknown>>;
  settings?: CheckSettings;
  /**
   * Once a synchronous guardrail denies, cancel the outstanding checks of the other synchronous
   * guardrails (the status is decided; their results show AbortError). Async guardrails run on.
   */
  stopOnDeny?: boolean;
}

/** What one phase yields; structured-clone safe. */
export interface PhaseResult {
  /** One result per guardrail, in the task's order. */
  results: GuardrailResult[];
  request: unknown;
  response: unknown;
  /** Whether a synchronous guardrail changed the request or response. */
  transformed: boolean;
}

/**
 * Callbacks through which a pool worker publishes which checks are running and until when, so the
 * main thread can tell a check that stopped yielding from one still within its limit. A check's
 * slot is its position in the task: the checks of every guardrail, disabled ones included, in order.
 */
export interface CheckWatch {
  /** A check started; its limit ends `limitMs` from now. */
  started(slot: number, limitMs: number): void;
  /** The check settled (result, error, time limit or cancellation). */
  finished(slot: number): void;
}

/** Slot of the first check of each guardrail (see CheckWatch). */
export function checkSlots(guardrails: readonly Guardrail[]): number[] {
  const bases: number[] = [];
  let next = 0;
  for (const guardrail of guardrails) {
    bases.push(next);
    next += guardrail.checks.length;
  }
  return bases;
}
