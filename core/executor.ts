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

/** Runs phases on the calling thread: no round trip, but a check that blocks blocks the caller. */
export class InlineExecutor implements Executor {
  readonly name = "inline";
  readonly #registry: CheckRegistry;

  constructor(registry: CheckRegistry) {
    this.#registry = registry;
  }

  run(task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult> {
    return runPhase(this.#registry, task, signal);
  }

  async close(): Promise<void> {}
}
