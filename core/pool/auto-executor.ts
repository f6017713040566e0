/**
 * The "auto" executor: per phase, inline or through the worker pool, by measured cost.
 *
 * - A check from a plugin given as an object cannot cross into a worker: its phase runs inline.
 * - A check from a plugin loaded from a module (a path or a package) is not guardgate's code and
 *   may never yield: its phase runs in the pool, under hard time limits.
 * - A check marked `runsInPool` (a neural model's inference) sends its phase to the pool, always.
 * - Built-in network and model checks wait rather than compute, and their limits work inline
 *   (they yield): they add nothing to the estimate. In the pool they would hold a worker idle.
 * - Built-in deterministic checks cost what they were measured to cost on texts of that size
 *   (CheckCosts: the least of their recent runs, inline or in the pool, since a loaded machine
 *   only ever adds to a run's time). The phase runs inline
 *   when the sum is within the budget — the pool's own overhead per phase, which is larger while
 *   the event loop (and so the workers' cores) idles, and which rises to what the pool's recent
 *   hand-overs of texts of that size cost this thread when that is more (a loaded machine
 *   stretches both alike) — and the text is within `inlineMaxChars`; a
 *   check not yet measured at that size sends the phase to the pool, which is always safe and
 *   measures it.
 *
 * The pool starts on the first phase that needs it. The numbers behind the defaults are in the
 * docs/design.md ("What `"auto"` picks"), docs/performance.md and bench/results/checks.md.
 */
import { performance } from "node:perf_hooks";
import { GuardgateError } from "../errors.js";
import { locateText } from "../content.js";
import { type Executor, type ExecutorContext, InlineExecutor } from "../executor.js";
import type { PhaseResult, PhaseTask } from "../phase/task.js";
import type { Guardrail } from "../types.js";
import { CheckCosts } from "./check-costs.js";
import { HAND_OVER, PoolExecutor, type PoolOptions, type PoolStats } from "./pool-executor.js";
import { loadChecks, mergeReports, type WarmReport, type WarmRequest } from "../warm.js";
import { workerEntry } from "./worker-entry.js";

/** Options of the "auto" executor. */
export interface AutoOptions {
  /**
   * A phase runs inline when its checks' learned cost on its text is at most this many µs. Given,
   * it is fixed; by default it is DEFAULT_INLINE_BUDGET_US or, once the pool has run phases of
   * that size, what handing one over was measured to cost this thread, whichever is larger.
   */
  inlineBudgetUs?: number;
  /**
   * The budget while the event loop is mostly idle; default 150 µs, or `inlineBudgetUs` when only
   * that is given.
   */
  idleInlineBudgetUs?: number;
  /** The event loop's recent utilisation, 0 to 1; default measured on this thread (tests replace it). */
  loopUtilization?: () => number;
  /** Evaluated texts longer than this (characters) always go to the pool when deterministic checks read them. */
  inlineMaxChars?: number;
  /** The learned costs; a fresh table unless given (tests read and seed it). */
  costs?: CheckCosts;
  /** The pool's measured hand-overs, under HAND_OVER; a fresh table unless given (tests read and seed it). */
  handOvers?: CheckCosts;
}

/**
 * Default budget while the event loop is busy: what handing a phase to the pool costs the event
 * loop itself. In a gateway a request's phases rarely wait for a worker together, so tasks carry
 * one or a few phases: with 1–4 of the gateway benchmark's input phases (1 KB) in flight, the
 * hand-over cost the main thread 54–78 µs per phase against 41–46 µs for running the phase
 * inline, and the process 130–220 µs against 42–47 (docs/design.md, "What `"auto"` picks"). A phase
 * under 100 µs frees no event-loop time in the pool; at 50 µs, the pack's phases (45–55 µs under
 * load) went there one in two.
 */
export const DEFAULT_INLINE_BUDGET_US = 100;
/**
 * Default budget while the event loop was mostly idle: the pool's overhead per phase when the
 * workers' cores must wake up (118–140 µs measured), rounded up. A phase that costs less then
 * answers sooner inline, and there is little for it to hold up. Under `guardgate serve` at 200
 * requests per second, where the checks run cold and cost more, the 50 µs budget alone sent half
 * the phases to the pool and added about 0.15 ms to the median request (docs/design.md, "What
 * `"auto"` picks").
 */
export const DEFAULT_IDLE_INLINE_BUDGET_US = 150;
/** Below this event-loop utilisation the idle budget applies. */
const IDLE_UTILIZATION = 0.5;
/** How long a measure of the event loop's utilisation stands before it is taken again, ms. */
const LOAD_WINDOW_MS = 100;
/**
 * Default text ceiling for inline phases, whatever was learned: at 16 KB even the cheapest check
 * measured (regexMatch, whose RE2 scan takes 28 µs on 10 KB) costs more than the budget.
 */
export const DEFAULT_INLINE_MAX_CHARS = 16_384;

/** What the choice of a phase reads of its list, worked out once per list. */
interface ListPlan {
  /** A check comes from a plugin object: the phase runs inline. */
  object: boolean;
  /** A check must run in a worker (`runsInPool`, or a plugin module's): the phase goes to the pool. */
  bound: boolean;
  /** The ids of the enabled deterministic checks whose learned costs decide, one per check. */
  costed: string[];
  /**
   * The ids whose results teach their cost: registered deterministic checks that no parameter
   * made another kind (a check calling a model or a judge costs what that call costs).
   */
  learned: ReadonlySet<string>;
}

/** Errors that say nothing about what a check costs. */
const NOT_A_COST = new Set(["TimeoutError", "WorkerError", "AbortError"]);

/** Runs each phase inline or in the worker pool, whichever the measurements favour. */
export class AutoExecutor implements Executor {
  readonly name = "auto";
  readonly #context: ExecutorContext;
  readonly #inline: InlineExecutor;
  readonly #poolOptions: PoolOptions;
  readonly #budget: number;
  readonly #idleBudget: number;
  /** Whether the budgets rise to the hand-over's measured cost (neither was given). */
  readonly #followHandOver: boolean;
  readonly #utilization: () => number;
  readonly #maxChars: number;
  readonly #costs: CheckCosts;
  readonly #handOvers: CheckCosts;
  /** Plugin ids by where their code came from; built-in plugins are absent. */
  readonly #origin = new Map<string, "module" | "object">();
  /** Plans of the lists seen, by list (lists are prepared once per config). */
  readonly #plans = new WeakMap<readonly Guardrail[], ListPlan>();
  #pool: PoolExecutor | undefined;
  #closed = false;
  #counts = { inline: 0, pool: 0 };

  /** Prepares both executors; the pool starts on first use. */
  constructor(context: ExecutorContext, options: { pool?: PoolOptions; auto?: AutoOptions } = {}) {
    this.#context = context;
    this.#inline = new InlineExecutor(context.registry);
    this.#poolOptions = options.pool ?? {};
    this.#budget = options.auto?.inlineBudgetUs ?? DEFAULT_INLINE_BUDGET_US;
    this.#idleBudget = options.auto?.idleInlineBudgetUs ?? options.auto?.inlineBudgetUs ?? DEFAULT_IDLE_INLINE_BUDGET_US;
    this.#followHandOver = options.auto?.inlineBudgetUs === undefined && options.auto?.idleInlineBudgetUs === undefined;
    this.#utilization = options.auto?.loopUtilization ?? loopUtilization();
    this.#maxChars = options.auto?.inlineMaxChars ?? DEFAULT_INLINE_MAX_CHARS;
    this.#costs = options.auto?.costs ?? new CheckCosts();
    this.#handOvers = options.auto?.handOvers ?? new CheckCosts();
    // The pool starts late, but a package that was never built should fail here, not mid-request.
    workerEntry();
    for (const loaded of context.plugins) {
      const id = (loaded.plugin as { id?: unknown }).id;
      if (typeof id === "string") this.#origin.set(id, loaded.moduleUrl === undefined ? "object" : "module");
    }
  }

  /**
   * Where a phase would run now, and why; `explain: false` leaves the reason empty (a phase's own
   * choice needs none) and reads the list's plan, worked out once per list, instead of its checks.
   */
  choose(task: PhaseTask, chars = evaluatedLength(task), explain = true): { executor: "inline" | "pool"; reason: string } {
    if (!explain) return { executor: this.#place(task.guardrails, chars), reason: "" };
    return this.#explain(task, chars);
  }

  /** `choose` without its reason, from the list's plan: what a phase pays for its choice. */
  #place(guardrails: readonly Guardrail[], chars: number): "inline" | "pool" {
    const plan = this.#planOf(guardrails);
    if (plan.object) return "inline";
    if (plan.bound) return "pool";
    if (plan.costed.length === 0) return "inline";
    if (chars > this.#maxChars) return "pool";
    let cost = 0;
    for (const id of plan.costed) {
      const micros = this.#costs.estimate(id, chars);
      if (micros === undefined) return "pool";
      cost += micros;
    }
    return cost > this.#budgetFor(chars, this.#utilization() < IDLE_UTILIZATION) ? "pool" : "inline";
  }

  /**
   * The inline budget for a text of `chars` characters. The checks' costs are learned from their
   * wall-clock runs, which a loaded machine stretches; so it stretches a hand-over, which on the
   * gateway's busy event loop measured 3–4 times an inline phase of the same checks
   * (docs/performance.md). A fixed budget therefore sent phases to the pool exactly when the pool
   * cost the event loop most; the hand-over's own recent cost, measured the same way, follows the
   * machine as the checks' do.
   */
  #budgetFor(chars: number, idle: boolean): number {
    const fixed = idle ? this.#idleBudget : this.#budget;
    if (!this.#followHandOver) return fixed;
    const handOver = this.#handOvers.estimate(HAND_OVER, chars);
    return handOver === undefined || handOver < fixed ? fixed : handOver;
  }

  /** What `#place` reads of a list: the same rules as `#explain`, applied to its checks once. */
  #planOf(guardrails: readonly Guardrail[]): ListPlan {
    let plan = this.#plans.get(guardrails);
    if (plan) return plan;
    const reconfigured = reconfiguredChecks(guardrails);
    const learned = new Set<string>();
    plan = { object: false, bound: false, costed: [], learned };
    for (const guardrail of guardrails) {
      for (const config of guardrail.checks) {
        if (!config.enabled) continue;
        const check = this.#context.registry.get(config.id);
        if (!check) continue;
        if (check.kind === "deterministic" && !reconfigured.has(config.id)) learned.add(config.id);
        const origin = this.#origin.get(check.plugin.id);
        if (origin === "object") plan.object = true;
        else if (check.runsInPool || config.runsInPool || origin === "module") plan.bound = true;
        else if ((config.kind ?? check.kind) === "deterministic") plan.costed.push(config.id);
      }
    }
    this.#plans.set(guardrails, plan);
    return plan;
  }

  /** `choose` with its reason, check by check. */
  #explain(task: PhaseTask, chars: number): { executor: "inline" | "pool"; reason: string } {
    let cost = 0;
    // The first reason to pool wins.
    let pooled = false;
    let pool = "";
    for (const guardrail of task.guardrails) {
      for (const config of guardrail.checks) {
        if (!config.enabled) continue;
        const check = this.#context.registry.get(config.id);
        if (!check) continue;
        const origin = this.#origin.get(check.plugin.id);
        if (origin === "object") {
          return {
            executor: "inline",
            reason: `${config.id} comes from a plugin object, which cannot cross into a worker`,
          };
        }
        if (check.runsInPool || config.runsInPool) {
          if (!pooled) pool = `${config.id} always runs in a worker thread`;
          pooled = true;
          continue;
        }
        if (origin === "module") {
          if (!pooled) pool = `${config.id} comes from a plugin module, so it runs under the pool's hard time limits`;
          pooled = true;
          continue;
        }
        if ((config.kind ?? check.kind) !== "deterministic") continue;
        if (chars > this.#maxChars) {
          if (!pooled) pool = `the text (${chars} characters) is longer than the inline ceiling of ${this.#maxChars}`;
          pooled = true;
          continue;
        }
        const micros = this.#costs.estimate(config.id, chars);
        if (micros !== undefined) cost += micros;
        else {
          if (!pooled) pool = `${config.id} has not been measured on a text of this size yet`;
          pooled = true;
        }
      }
    }
    if (pooled) return { executor: "pool", reason: pool };
    const idle = this.#utilization() < IDLE_UTILIZATION;
    const fixed = idle ? this.#idleBudget : this.#budget;
    const budget = this.#budgetFor(chars, idle);
    const executor = cost > budget ? "pool" : "inline";
    const measured = budget === fixed ? "" : ", the pool's recent hand-over cost";
    const which = `the inline budget of ${budget.toFixed(budget === fixed ? 0 : 1)} µs (event loop ${idle ? "mostly idle" : "busy"}${measured})`;
    return { executor, reason: `its checks cost ${cost.toFixed(1)} µs, ${executor === "pool" ? "over" : "within"} ${which}` };
  }

  /** How many phases ran each way. */
  counts(): { inline: number; pool: number } {
    return { ...this.#counts };
  }

  /** The worker pool's counters, once the pool has started. */
  poolStats(): PoolStats | undefined {
    return this.#pool?.stats();
  }

  /** Runs a phase where `choose` says, and learns from the per-check times of its results. */
  async run(task: PhaseTask, signal?: AbortSignal): Promise<PhaseResult> {
    const chars = evaluatedLength(task);
    const executor = this.#place(task.guardrails, chars);
    this.#counts[executor]++;
    const result = executor === "inline" ? await this.#inline.run(task, signal) : await this.#poolExecutor().run(task, signal);
    this.#learn(task, chars, result);
    return result;
  }

  /** `run`, with no promise for a phase that runs inline and whose checks all answered synchronously. */
  runNow(task: PhaseTask, signal?: AbortSignal): PhaseResult | Promise<PhaseResult> {
    // Located once: its length decides where the phase runs, and an inline phase reads the same text.
    const located = locateText(task.side, task.requestType, task.side === "input" ? task.request : task.response);
    const chars = located.text.length;
    const executor = this.#place(task.guardrails, chars);
    this.#counts[executor]++;
    const result = executor === "inline" ? this.#inline.runNow(task, signal, located) : this.#poolExecutor().run(task, signal);
    if (!(result instanceof Promise)) {
      this.#learn(task, chars, result);
      return result;
    }
    return result.then((settled) => {
      this.#learn(task, chars, settled);
      return settled;
    });
  }

  /** Learns the per-check costs of a phase's results, reading which checks teach from the list's plan. */
  #learn(task: PhaseTask, chars: number, result: PhaseResult): void {
    const { learned } = this.#planOf(task.guardrails);
    if (learned.size === 0) return;
    for (const guardrail of result.results) {
      for (const check of guardrail.checks) {
        if (!learned.has(check.id)) continue;
        if (typeof check.error === "object" && NOT_A_COST.has(check.error.name)) continue;
        this.#costs.learn(check.id, chars, check.execution_time * 1000);
      }
    }
  }

  /**
   * Starts the pool and warms every worker with all the checks (a phase may go there whatever its
   * checks), and loads here the built-in checks that may run inline.
   */
  async warm(request: WarmRequest): Promise<WarmReport> {
    const inline = request.checks.filter((c) => {
      const check = this.#context.registry.get(c.id);
      return check !== undefined && !check.runsInPool && !c.runsInPool && this.#origin.get(check.plugin.id) !== "module";
    });
    const here = await loadChecks(this.#context.registry, { ...request, checks: inline });
    const pool = await this.#poolExecutor().warm(request);
    return mergeReports([here, pool]);
  }

  /** Stops the pool, if it started. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.close();
  }

  #poolExecutor(): PoolExecutor {
    // A warm-up still running when the engine closed must not start a pool nobody will stop.
    if (this.#closed && !this.#pool)
      throw new GuardgateError("engine_closed", "the engine is closed: its worker pool does not start any more");
    // Phases with checks from plugin objects never come here, so the workers load only modules.
    const plugins = this.#context.plugins.filter((p) => p.moduleUrl !== undefined);
    const builtins = this.#context.builtins ?? [];
    this.#pool ??= new PoolExecutor({ registry: this.#context.registry, plugins, builtins }, this.#poolOptions, {
      handOvers: this.#handOvers,
    });
    return this.#pool;
  }
}

/**
 * This thread's event-loop utilisation over the last window: a measure stands for LOAD_WINDOW_MS,
 * so a phase usually reads a number rather than asks the runtime.
 */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  let at = performance.now();
  let value = 0;
  return () => {
    const now = performance.now();
    if (now - at >= LOAD_WINDOW_MS) {
      const current = performance.eventLoopUtilization();
      value = performance.eventLoopUtilization(current, last).utilization;
      last = current;
      at = now;
    }
    return value;
  };
}

/** Ids of the checks of a list whose parameters made them another kind; lists are prepared once, so worked out once. */
const reconfiguredOf = new WeakMap<readonly Guardrail[], ReadonlySet<string>>();

function reconfiguredChecks(guardrails: readonly Guardrail[]): ReadonlySet<string> {
  let ids = reconfiguredOf.get(guardrails);
  if (!ids) {
    ids = new Set(guardrails.flatMap((g) => g.checks.filter((c) => c.kind).map((c) => c.id)));
    reconfiguredOf.set(guardrails, ids);
  }
  return ids;
}

/** Length of the text the phase's checks evaluate. */
function evaluatedLength(task: PhaseTask): number {
  return locateText(task.side, task.requestType, task.side === "input" ? task.request : task.response).text.length;
}
