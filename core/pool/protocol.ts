/**
 * What crosses between the pool and its workers. Everything here is plain data (structured
 * clone): no functions, no class instances beyond what structured clone keeps.
 */
import type { RegexEngineName } from "../regex.js";
import type { PhaseTask } from "../phase/task.js";
import type { GuardrailResult } from "../types.js";
import type { WarmReport, WarmRequest } from "../warm.js";

/** Handed to every worker when it starts. */
export interface WorkerData {
  /** Plugins loaded from modules, which each worker imports again. */
  plugins: Array<{ moduleUrl: string; source: string }>;
  /** The RE2 build the main thread uses, so both sides match patterns alike. */
  regexEngine: RegexEngineName;
  /** Origin of the clock shared through task memory (ms, `performance.timeOrigin` based). */
  epoch: number;
}

/** One worker task: phases to run concurrently, whose replies come back in the same order. */
export interface BatchMessage {
  phases: PhaseMessage[];
}

/** One phase to run. */
export interface PhaseMessage {
  task: PhaseTask;
  /** The task's shared memory (see task-memory.ts). */
  memory: SharedArrayBuffer;
  /** Whether the caller may cancel (then the worker watches the cancel flag). */
  cancellable: boolean;
}

/** A round trip with no work: readiness and the benchmark's transport cost. */
export interface PingMessage {
  ping: true;
}

/**
 * A warm-up: load what the checks need, then wait until `threads` workers have counted themselves
 * in `barrier` (an Int32 at 0), so that each of the pool's workers takes exactly one of them.
 */
export interface WarmMessage {
  warm: WarmRequest;
  barrier: SharedArrayBuffer;
  threads: number;
}

/** What a worker's warm-up did. */
export interface WarmReply {
  threadId: number;
  report: WarmReport;
}

export type WorkerMessage = BatchMessage | PingMessage | WarmMessage;

/** A phase's results. The body is only sent back when a check changed it. */
export interface PhaseReply {
  results: GuardrailResult[];
  transformed: boolean;
  request?: unknown;
  response?: unknown;
  /** True when the phase was cancelled before it started; the pool has already answered. */
  cancelled?: boolean;
}
