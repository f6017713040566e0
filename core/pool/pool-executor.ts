/**
 * Runs phases in a pool of worker threads (piscina): one task per phase, never one per check,
 * because a round trip costs far more than a cheap check (docs/design.md, "Why the pool and the checks are built this way").
 * Each worker holds one task at a time. Phases that arrive while every worker is busy wait here,
 * and when a worker frees up, the waiting phases that only run deterministic checks on short texts
 * travel together in one task (up to BATCH_PHASES of them): under load the fixed cost of a round
 * trip is shared, while a phase that arrives at an idle pool still travels alone.
 *
 * Inside the worker, the runner races each check against its time limit. A check that never
 * yields blocks its worker's event loop, so that race cannot fire there: the main thread watches
 * the deadlines the worker publishes in shared memory and, once one has passed by the margin,
 * stops the worker (piscina terminates it and starts a fresh one). The phase then answers at
 * once: the overdue checks with TimeoutError, the other checks of the task with WorkerError, their
 * results being lost with the worker. A worker that crashes or runs out of memory fails only the
 * checks of its task, likewise. Phases lost with a worker that shared its task with others run
 * once more, alone: they only run deterministic checks, which are safe to repeat, and the phase
 * that brought the worker down cannot tell them apart from itself otherwise.
 * Cancellation is cooperative: the worker aborts the checks' signals and stays alive, while the
 * caller gets its answer immediately; a cancelled phase still waiting here is never sent.
 */
import os from "node:os";
import type { ResourceLimits } from "node:worker_threads";
import { Piscina } from "piscina";
import { CheckAbortedError, CheckLostError, CheckTimeoutError, GuardgateError, PluginError } from "../errors.js";
import type { CheckErrorCode } from "../error-codes.js";
import type { Executor, ExecutorContext } from "../executor.js";
import { locateText } from "../content.js";
import { regexEngine } from "../regex.js";
import { type CheckRegistry, DEFAULT_TIMEOUTS } from "../registry.js";
import { elapsed } from "../phase/clock.js";
import { erroredPhase, type LostCheck } from "../phase/results.js";
import type { PhaseResult, PhaseTask } from "../phase/task.js";
import type { CheckConfig } from "../types.js";
import { CheckCosts } from "./check-costs.js";
import { mergeReports, type WarmReport, type WarmRequest } from "../warm.js";
import type { PhaseMessage, PhaseReply, WarmReply, WorkerData, WorkerMessage } from "./protocol.js";
import {
  cancelRequested,
  createTaskMemory,
  earliestDeadline,
  overdueSlots,
  requestCancel,
  resetTaskMemory,
  runningThread,
  sinceEpoch,
  TaskState,
  taskState,
  viewTaskMemory,
} from "./task-memory.js";
import { compiledModuleUrl, workerEntry } from "./worker-entry.js";

/** Options of the worker pool. */
export interface PoolOptions {
  /** Worker threads; defaults to the number of cores. */
  size?: number;
  /** Heap caps of each worker; a worker that exceeds them fails only its phase's checks and is replaced. */
  resourceLimits?: ResourceLimits;
  /** Milliseconds past a check's time limit before the main thread stops its worker; default 50. */
  cutOffMargin?: number;
}

/** Counters of what the pool has had to do, for metrics and tests. */
export interface PoolStats {
  threads: number;
  /** Phases waiting for a free worker. */
  queued: number;
  /** Phases answered by a worker. */
  completed: number;
  /** Tasks handed to workers: fewer than the phases when waiting phases shared tasks. */
  tasks: number;
  /** Workers stopped because a check overran its time limit without yielding. */
  cutOffs: number;
  /** Tasks lost to a worker that crashed, ran out of memory or exited. */
  failures: number;
  /** Workers that ran the last warm-up (`warm`): each loaded what its checks need. */
  warmed: number;
}

const DEFAULT_MARGIN_MS = 50;
/**
 * Most phases one worker task carries. Batches of 8 halved the pool's CPU per phase against
 * single phases (docs/design.md, "Why the pool and the checks are built this way"); larger ones add latency to the first
 * phase of a batch for little more.
 */
const BATCH_PHASES = 8;
/** Longest evaluated text (characters) of a phase that may share a task: longer ones run long enough alone. */
const BATCH_MAX_CHARS = 16_384;
/** The key hand-overs are learned under in a CheckCosts table (see `handOverMicros`). */
export const HAND_OVER = "hand-over";

/** A phase waiting for a worker or travelling to one. */
interface Shipment {
  message: PhaseMessage;
  /** Only deterministic checks on a short text: may share a task, and may run again when that task is lost. */
  batchable: boolean;
  /** Whether it already ran again after its task was lost. */
  rerun: boolean;
  /** Length of the phase's evaluated text: hand-overs are measured by its size class. */
  chars: number;
  /** This thread's µs spent sending it (its share of its task's); its reply's share is added on return. */
  sent: number;
  /** Whether the caller still waits for it (not cancelled, not cut off). */
  open(): boolean;
  done(reply: PhaseReply | null): void;
  lost(error: unknown): void;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${code}: ${error.message}` : `${error.name}: ${error.message}`;
}

function asValue(error: Error): { name: string; message: string } {
  return { name: error.name, message: error.message };
}

/** The check at a slot of the task (see CheckWatch). */
function configAt(task: PhaseTask, slot: number): CheckConfig {
  let rest = slot;
  for (const guardrail of task.guardrails) {
    if (rest < guardrail.checks.length) return guardrail.checks[rest] as CheckConfig;
    rest -= guardrail.checks.length;
  }
  throw new RangeError(`no check at slot ${slot}`);
}

/** Runs phases in worker threads with hard time limits. */
export class PoolExecutor implements Executor {
  readonly name = "pool";
  /** Number of worker threads. */
  readonly size: number;
  readonly #pool: Piscina<WorkerMessage, PhaseReply[] | WarmReply | null>;
  /** Phases waiting for a free worker, oldest first. */
  #waiting: Shipment[] = [];
  /** Tasks handed to piscina and not answered yet: at most one per worker. */
  #busy = 0;
  #completed = 0;
  #tasks = 0;
  readonly #registry: CheckRegistry;
  readonly #epoch: number;
  readonly #margin: number;
  readonly #failed: Promise<never>;
  #failure: Error | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;
  #cutOffs = 0;
  #failures = 0;
  #warmed = 0;
  /** What handing a phase over cost this thread, by size class of its text (see `handOverMicros`). */
  readonly #handOvers: CheckCosts;

  /** Starts the workers. Plugins given as objects cannot cross into a worker: they are refused here. */
  constructor(context: ExecutorContext, options: PoolOptions = {}, learned: { handOvers?: CheckCosts } = {}) {
    this.#handOvers = learned.handOvers ?? new CheckCosts();
    const objects = context.plugins.filter((p) => p.moduleUrl === undefined);
    if (objects.length > 0) {
      throw new PluginError(
        `${objects.map((p) => p.source).join(", ")} cannot run in worker threads: a plugin given as an object has no module a worker can import; load it by path or package name, or use the "inline" or "auto" executor`,
        "plugin_not_transferable",
      );
    }
    this.size = Math.max(1, Math.floor(options.size ?? os.availableParallelism()));
    this.#registry = context.registry;
    this.#margin = options.cutOffMargin ?? DEFAULT_MARGIN_MS;
    this.#epoch = performance.timeOrigin + performance.now();
    const workerData: WorkerData = {
      plugins: [
        ...(context.builtins ?? []).map((p) => ({ moduleUrl: compiledModuleUrl(p.moduleUrl as string), source: p.source })),
        ...context.plugins.map((p) => ({ moduleUrl: p.moduleUrl as string, source: p.source })),
      ],
      regexEngine: regexEngine(),
      epoch: this.#epoch,
    };
    let fail: (error: Error) => void = () => {};
    this.#failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    this.#failed.catch(() => {});
    this.#pool = new Piscina<WorkerMessage, PhaseReply[] | WarmReply | null>({
      filename: workerEntry(),
      minThreads: this.size,
      maxThreads: this.size,
      // Idle workers wait with Atomics.waitAsync, so their event loop keeps turning between
      // tasks (a timed-out check's leftovers settle); it measured as fast as "sync" and "disabled".
      atomics: "async",
      // The pool's own timing histogram is not used; per-check times come from the worker.
      recordTiming: false,
      workerData,
      ...(options.resourceLimits && { resourceLimits: options.resourceLimits }),
    });
    // A worker that fails outside a task (a check's stray callback throwing after its phase) is
    // replaced by piscina; only workers failing to start at all leave the pool empty.
    this.#pool.on("error", (error: Error) => {
      this.#failures++;
      if (this.#pool.threads.length === 0 && !this.#failure) {
        this.#failure = new GuardgateError("pool_start_failed", `the worker pool's threads failed to start: ${describe(error)}`);
        fail(this.#failure);
        void this.#pool.destroy();
      }
    });
  }

  /** Resolves once a worker has loaded the registry and answered; rejects when workers cannot start. */
  ready(): Promise<void> {
    this.#ready ??= Promise.race([this.#pool.run({ ping: true }).then(() => {}), this.#failed]);
    return this.#ready;
  }

  /** One round trip through a worker with no work (what the benchmark reports as the pool's cost). */
  async ping(): Promise<void> {
    await this.#pool.run({ ping: true });
  }

  /**
   * Starts every worker and has each load what the checks need: one warm-up per worker, each held
   * until all have theirs (protocol.ts), so none is left cold.
   */
  async warm(request: WarmRequest): Promise<WarmReport> {
    await this.ready();
    const barrier = new SharedArrayBuffer(4);
    const replies = (await Promise.race([
      Promise.all(Array.from({ length: this.size }, () => this.#pool.run({ warm: request, barrier, threads: this.size }))),
      this.#failed,
    ])) as WarmReply[];
    this.#warmed = new Set(replies.map((reply) => reply.threadId)).size;
    return { ...mergeReports(replies.map((reply) => reply.report)), threads: this.#warmed };
  }

  /** What the pool has had to do so far. */
  stats(): PoolStats {
    return {
      threads: this.#pool.threads.length,
      queued: this.#waiting.length,
      completed: this.#completed,
      tasks: this.#tasks,
      cutOffs: this.#cutOffs,
      failures: this.#failures,
      warmed: this.#warmed,
    };
  }

  /**
   * What handing a phase of `chars` characters to a worker has recently cost this thread, in µs:
   * the least of the last hand-overs at that size, measured as the checks' own runs are (see
   * CheckCosts), so that both read alike on a loaded machine. It covers sending the task (the
   * structured clone and the message) and the reply's continuation, not the reply's clone, which
   * the runtime reads before any of this code runs: a lower bound. Undefined until measured.
   */
  handOverMicros(chars: number): number | undefined {
    return this.#handOvers.estimate(HAND_OVER, chars);
  }

  /** Runs one phase in a worker; always resolves with a result for every enabled check. */
  run(task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult> {
    if (this.#closed)
      return Promise.reject(new GuardgateError("engine_closed", "the engine is closed: its worker pool runs no more phases"));
    const started = performance.now();
    const cancelled = () =>
      erroredPhase(task, (config) => ({
        error: asValue(new CheckAbortedError(config.id, typeof signal?.reason === "string" ? signal.reason : undefined)),
        execution_time: elapsed(started),
      }));
    if (signal?.aborted) return Promise.resolve(cancelled());
    if (this.#failure) {
      const reason = this.#failure.message;
      return Promise.resolve(erroredPhase(task, (config) => this.#lost(config, reason, started)));
    }

    let slots = 0;
    let shortest = Number.POSITIVE_INFINITY;
    for (const guardrail of task.guardrails) {
      for (const config of guardrail.checks) {
        slots++;
        if (config.enabled) shortest = Math.min(shortest, this.#limit(config));
      }
    }
    const memory = createTaskMemory(slots);
    const view = viewTaskMemory(memory);
    let stopped = false;

    return new Promise<PhaseResult>((resolve) => {
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      const answer = (result: PhaseResult) => {
        if (answered) return;
        answered = true;
        signal?.removeEventListener("abort", onCancel);
        resolve(result);
      };
      const onCancel = () => {
        requestCancel(view);
        answer(cancelled());
      };

      // Wakes up when the earliest running check's limit plus the margin has passed, and stops the
      // worker if that check is still running: its own timer, in the worker, could not fire.
      const watchdog = () => {
        const now = sinceEpoch(this.#epoch);
        const state = taskState(view);
        // A phase answered before it started (cancelled) is never started, or skipped at once.
        if (state === TaskState.done || (answered && state === TaskState.queued)) return;
        if (state === TaskState.running && overdueSlots(view, now - this.#margin).length > 0) return cutOff(now);
        const next = Math.min(earliestDeadline(view), now + shortest);
        timer = setTimeout(watchdog, Math.max(1, next + this.#margin - now));
        timer.unref();
      };
      const cutOff = (now: number) => {
        const overdue = new Set(overdueSlots(view, now));
        this.#cutOffs++;
        stopped = true;
        this.#stopThread(runningThread(view));
        const first = configAt(task, Math.min(...overdue));
        const culprit = new CheckTimeoutError(first.id, this.#limit(first));
        const reason = `the worker running its phase was stopped because ${culprit.message} without yielding`;
        answer(
          erroredPhase(task, (config, slot) => {
            if (!overdue.has(slot)) return this.#lost(config, reason, started, "worker_stopped");
            const error = new CheckTimeoutError(config.id, this.#limit(config));
            return {
              error: { name: error.name, message: `${error.message}; it did not yield, so the worker running it was stopped` },
              execution_time: elapsed(started),
            };
          }),
        );
      };

      if (shortest !== Number.POSITIVE_INFINITY) {
        timer = setTimeout(watchdog, shortest + this.#margin);
        timer.unref();
      }
      signal?.addEventListener("abort", onCancel, { once: true });
      this.#ship({
        message: { task, memory, cancellable: signal !== undefined },
        ...this.#shape(task),
        rerun: false,
        sent: 0,
        open: () => !answered && !stopped,
        done: (reply) => {
          clearTimeout(timer);
          if (!reply || reply.cancelled) return answer(cancelled());
          answer({
            results: reply.results,
            request: "request" in reply ? reply.request : task.request,
            response: "response" in reply ? reply.response : task.response,
            transformed: reply.transformed,
          });
        },
        lost: (error) => {
          clearTimeout(timer);
          if (stopped) return; // cut off: already answered
          this.#failures++;
          const reason = `the worker thread running its phase failed (${describe(error)})`;
          answer(erroredPhase(task, (config) => this.#lost(config, reason, started)));
        },
      });
    });
  }

  /** Stops the workers; phases still running get WorkerError results. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Phases still waiting for a worker would never get one: they fail now, not hang.
    const closed = new GuardgateError("engine_closed", "the engine closed before a worker took the phase");
    for (const shipment of this.#waiting.splice(0)) shipment.lost(closed);
    await this.#pool.destroy();
  }

  /** Queues a phase and hands waiting phases to free workers. */
  #ship(shipment: Shipment): void {
    this.#waiting.push(shipment);
    this.#dispatch();
  }

  /**
   * Hands waiting phases to free workers: the oldest first, with the batchable ones behind it
   * when it is batchable too. No abort signal goes to piscina: listening to one cost more per
   * task than the checks of a cheap phase, so the cut-off stops a worker by its thread id.
   */
  #dispatch(): void {
    while (this.#busy < this.size && this.#waiting.length > 0) {
      const batch = this.#nextBatch();
      if (batch.length === 0) return;
      this.#busy++;
      this.#tasks++;
      const sending = performance.now();
      const task = this.#pool.run({ phases: batch.map((shipment) => shipment.message) });
      const sent = (performance.now() - sending) * 1000;
      for (const shipment of batch) shipment.sent += sent / batch.length;
      task.then(
        (replies) => {
          const replying = performance.now();
          this.#busy--;
          this.#completed += batch.length;
          // A phase batch is answered with its phases' replies, in order.
          const answers = replies as PhaseReply[] | null;
          batch.forEach((shipment, i) => shipment.done(answers?.[i] ?? null));
          const replied = ((performance.now() - replying) * 1000) / batch.length;
          for (const shipment of batch) this.#handOvers.learn(HAND_OVER, shipment.chars, shipment.sent + replied);
          this.#dispatch();
        },
        (error: unknown) => {
          this.#busy--;
          const shared = batch.length > 1;
          for (const shipment of batch) {
            if (shared && shipment.batchable && !shipment.rerun && shipment.open()) {
              // It may not be the phase that brought the worker down: run it again, alone.
              shipment.rerun = true;
              shipment.batchable = false;
              resetTaskMemory(viewTaskMemory(shipment.message.memory));
              this.#waiting.unshift(shipment);
            } else {
              shipment.lost(error);
            }
          }
          this.#dispatch();
        },
      );
    }
  }

  /** Takes the next task's phases off the queue, in order, dropping the ones nobody waits for. */
  #nextBatch(): Shipment[] {
    const batch: Shipment[] = [];
    while (this.#waiting.length > 0 && batch.length < BATCH_PHASES) {
      const shipment = this.#waiting[0] as Shipment;
      if (!shipment.open() || cancelRequested(viewTaskMemory(shipment.message.memory))) {
        this.#waiting.shift();
        continue;
      }
      if (batch.length > 0 && !shipment.batchable) break;
      batch.push(shipment);
      this.#waiting.shift();
      if (!shipment.batchable) break;
    }
    return batch;
  }

  /**
   * The length of a phase's text, and whether the phase may share a worker task: deterministic
   * checks only, on a short text.
   */
  #shape(task: PhaseTask): { batchable: boolean; chars: number } {
    const body = task.side === "input" ? task.request : task.response;
    const chars = locateText(task.side, task.requestType, body).text.length;
    for (const guardrail of task.guardrails) {
      for (const config of guardrail.checks) {
        if (config.enabled && (config.kind ?? this.#registry.get(config.id)?.kind) !== "deterministic")
          return { batchable: false, chars };
      }
    }
    return { batchable: chars <= BATCH_MAX_CHARS, chars };
  }

  /**
   * Stops the worker thread `threadId`: piscina sees it exit, fails the tasks it held and starts
   * a fresh worker in its place.
   */
  #stopThread(threadId: number): void {
    const worker = this.#pool.threads.find((thread) => thread.threadId === threadId);
    void worker?.terminate();
  }

  #limit(config: CheckConfig): number {
    return config.timeout ?? this.#registry.get(config.id)?.defaultTimeout ?? DEFAULT_TIMEOUTS.deterministic;
  }

  #lost(config: CheckConfig, reason: string, started: number, code: CheckErrorCode = "worker_failed"): LostCheck {
    return { error: asValue(new CheckLostError(config.id, reason, code)), execution_time: elapsed(started) };
  }
}
