/**
 * Executors run phases. The inline executor runs them on the calling thread; the pool executor
 * (core/pool) runs them in worker threads with hard time limits. Both take and return plain data.
 */
import type { EvaluatedText } from "./content.js";
import type { LoadedPlugin } from "./plugin-loader.js";
import type { CheckRegistry } from "./registry.js";
import { runPhase } from "./phase/run-phase.js";
import { runPhaseNow } from "./phase/run-phase-now.js";
import type { PhaseResult, PhaseTask } from "./phase/task.js";
import { loadChecks, mergeReports, type WarmReport, type WarmRequest } from "./warm.js";

/** Runs phases of guardrail checks. */
export interface Executor {
  readonly name: string;
  run(task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult>;
  /**
   * `run`, with the result itself rather than a promise when the phase ran through without
   * waiting (core/phase/run-phase-now.ts); the engine prefers it when an executor has it.
   */
  runNow?(task: PhaseTask, signal?: AbortSignal): PhaseResult | Promise<PhaseResult>;
  /** Starts what runs checks (threads) and loads what the checks need, in every thread that may run them. */
  warm?(request: WarmRequest): Promise<WarmReport>;
  close(): Promise<void>;
}

/** What an executor factory gets from the engine. */
export interface ExecutorContext {
  registry: CheckRegistry;
  /** The plugins loaded from modules, which a worker can import again. */
  plugins: LoadedPlugin[];
  /** The built-in plugins, loaded from their modules; workers import them before `plugins`. */
  builtins?: LoadedPlugin[];
}

/** The first enabled check of a phase that must run in a worker thread, if any. */
export function poolBoundCheck(registry: CheckRegistry, task: PhaseTask): string | undefined {
  for (const guardrail of task.guardrails) {
    for (const config of guardrail.checks) {
      if (config.enabled && (config.runsInPool || registry.get(config.id)?.runsInPool)) return config.id;
    }
  }
  return undefined;
}

/**
 * Runs phases on the calling thread: no round trip, but a check that blocks blocks the caller.
 * A phase holding a check that must run in a worker (`runsInPool`) goes to the pool instead, when
 * one is given; the pool is made on first need.
 */
export class InlineExecutor implements Executor {
  readonly name = "inline";
  readonly #registry: CheckRegistry;
  readonly #makePool: (() => Executor) | undefined;
  #pool: Executor | undefined;
  #closed = false;

  constructor(registry: CheckRegistry, options: { pool?: () => Executor } = {}) {
    this.#registry = registry;
    this.#makePool = options.pool;
  }

  run(task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult> {
    if (this.#makePool && poolBoundCheck(this.#registry, task) !== undefined) {
      this.#pool ??= this.#makePool();
      return this.#pool.run(task, signal);
    }
    return runPhase(this.#registry, task, signal);
  }

  /**
   * `run`, with no promise for a phase whose checks all answered synchronously on this thread;
   * `located` is the task's text when the caller located it already (core/pool/auto-executor.ts).
   */
  runNow(task: PhaseTask, signal?: AbortSignal, located?: EvaluatedText): PhaseResult | Promise<PhaseResult> {
    if (this.#makePool && poolBoundCheck(this.#registry, task) !== undefined) {
      this.#pool ??= this.#makePool();
      return this.#pool.run(task, signal);
    }
    return runPhaseNow(this.#registry, task, signal, located);
  }

  /** Loads here what runs here; checks bound to a worker load in the pool, which starts for them. */
  async warm(request: WarmRequest): Promise<WarmReport> {
    const bound = (c: WarmRequest["checks"][number]) =>
      this.#makePool !== undefined && (c.runsInPool === true || this.#registry.get(c.id)?.runsInPool === true);
    const here = await loadChecks(this.#registry, { ...request, checks: request.checks.filter((c) => !bound(c)) });
    const inPool = request.checks.filter(bound);
    // A warm-up still running when the engine closed must not start a pool nobody will stop.
    if (inPool.length === 0 || !this.#makePool || this.#closed) return here;
    this.#pool ??= this.#makePool();
    const pool = await this.#pool.warm?.({ ...request, checks: inPool });
    return pool ? mergeReports([here, pool]) : here;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.close();
  }
}
