/**
 * Executors run phases. The inline executor runs them on the calling thread; the pool executor
 * (core/pool) runs them in worker threads with hard time limits. Both take and return plain data.
 */
import type { LoadedPlugin } from "./plugin-loader.js";
import type { CheckRegistry } from "./registry.js";
import { type PhaseResult, type PhaseTask, runPhase } from "./runner.js";

/** Runs phases of guardrail checks. */
export interface Executor {
  readonly name: string;
  run(task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult>;
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

  async close(): Promise<void> {
    await this.#pool?.close();
  }
}
