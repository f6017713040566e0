/**
 * A phase without awaiting: when every enabled check of a phase is a deterministic check that runs
 * on this thread, the phase runs its checks one after another and returns its result as a value,
 * with no promise, microtask turn or async function frame per check and guardrail. Most phases of
 * a gateway are such phases (the default checks but the network and model ones answer
 * synchronously), and in a busy gateway each `await` of the asynchronous loop (run-phase.ts)
 * resumes behind every other request's microtasks: the loop's machinery cost about twice the
 * checks' own time there (docs/performance.md, "Enforce against the checks' own cost").
 *
 * The results are those of the asynchronous loop, field for field and in the same order; only
 * their times differ (one clock read per check, see PhaseClock). The rules are the same:
 * asynchronous guardrails and non-transforming checks read the content as received, transforming
 * checks and `sequential` guardrails read it after the transforms of the guardrails before them.
 * A check whose `run` returns a promise after all (a plugin's deterministic check may) does not
 * break this: its result, and whatever reads the content after its transform, follow when it
 * settles, and the phase returns a promise. Everything else (checks that call out or run a model,
 * checks bound to a worker, stopOnDeny, a signal already aborted) takes the asynchronous loop.
 */
import type { EvaluatedText } from "../content.js";
import type { CheckRegistry } from "../registry.js";
import type { CheckResult, Guardrail, GuardrailResult } from "../types.js";
import { elapsed, PhaseClock } from "./clock.js";
import { guardrailResult } from "./results.js";
import { type CheckRun, runCheckNow } from "./run-check.js";
import { runPhase, startPhase } from "./run-phase.js";
import type { Content, EnabledCheck, PhaseRun } from "./state.js";
import type { PhaseResult, PhaseTask } from "./task.js";

/** A guardrail's enabled checks, looked up once per prepared list. */
interface GuardrailPlan {
  enabled: EnabledCheck[];
  /** Whether a check of it may transform (their order then matters). */
  transforms: boolean;
}

/**
 * Plans per registry and prepared list; null when the list's phases take the asynchronous loop.
 * Lists are prepared once per config and not changed after (the server caches them per config),
 * so what they hold is worked out once, not per request.
 */
const plans = new WeakMap<CheckRegistry, WeakMap<readonly Guardrail[], GuardrailPlan[] | null>>();

/** The plan of a list whose every enabled check is registered, deterministic and free to run on this thread; else null. */
function phasePlan(registry: CheckRegistry, guardrails: readonly Guardrail[]): GuardrailPlan[] | null {
  let byList = plans.get(registry);
  if (!byList) {
    byList = new WeakMap();
    plans.set(registry, byList);
  }
  let plan = byList.get(guardrails);
  if (plan !== undefined) return plan;
  plan = [];
  let slot = 0;
  for (const guardrail of guardrails) {
    const enabled: EnabledCheck[] = [];
    let transforms = false;
    for (const config of guardrail.checks) {
      const at = slot++;
      if (!config.enabled) continue;
      const check = registry.get(config.id);
      // An unknown check errors in the asynchronous loop, which says so in its result.
      if (!check || config.runsInPool || check.runsInPool || (config.kind ?? check.kind) !== "deterministic") {
        plan = null;
        break;
      }
      enabled.push({ config, slot: at, check });
      if (check.definition.transforms === true) transforms = true;
    }
    if (plan === null) break;
    plan.push({ enabled, transforms });
  }
  byList.set(guardrails, plan);
  return plan;
}

/**
 * Runs a phase as runPhase does, without a promise when its checks allow: the result itself when
 * every check answered synchronously, else a promise of it. `located` is the task's text, when the
 * caller located it already.
 */
export function runPhaseNow(
  registry: CheckRegistry,
  task: PhaseTask,
  signal?: AbortSignal,
  located?: EvaluatedText,
): PhaseResult | Promise<PhaseResult> {
  const plan = phasePlan(registry, task.guardrails);
  if (plan === null || task.stopOnDeny === true || signal?.aborted === true) return runPhase(registry, task, signal);
  const run = startPhase(registry, task, signal, undefined, located);
  const clock = new PhaseClock();
  const count = task.guardrails.length;
  const results: Array<GuardrailResult | Promise<GuardrailResult>> = new Array(count);
  let pending = false;
  for (let g = 0; g < count; g++) {
    const result = runGuardrailNow(run, task.guardrails[g] as Guardrail, plan[g] as GuardrailPlan, clock);
    if (result instanceof Promise) pending = true;
    results[g] = result;
  }
  clock.live = false;
  const { original, chain } = run;
  if (!pending && !(chain instanceof Promise)) {
    return {
      results: results as GuardrailResult[],
      request: chain.request,
      response: chain.response,
      transformed: chain !== original,
    };
  }
  return Promise.all([Promise.all(results), chain]).then(([settled, final]) => ({
    results: settled,
    request: final.request,
    response: final.response,
    transformed: final !== original,
  }));
}

/**
 * One guardrail, as runGuardrail runs it (run-guardrail.ts), checks one after another: its result,
 * or a promise of it when a check answered with one. A guardrail whose checks all read the content
 * as received (asynchronous, or none of its checks transforms: the standard pack's) runs in a plain
 * loop, with no closure or context object per guardrail.
 */
function runGuardrailNow(
  run: PhaseRun,
  guardrail: Guardrail,
  plan: GuardrailPlan,
  clock: PhaseClock,
): GuardrailResult | Promise<GuardrailResult> {
  if (!guardrail.async && (guardrail.sequential || plan.transforms)) return runChainedNow(run, guardrail, plan, clock);
  const started = clock.start();
  const created_at = clock.iso(started);
  const { enabled } = plan;
  const count = enabled.length;
  const results: CheckResult[] = new Array(count);
  let pending: Array<Promise<unknown>> | undefined;
  for (let i = 0; i < count; i++) {
    // Without stopOnDeny (which takes the asynchronous loop) both kinds of guardrail follow the caller's signal.
    const ran = runCheckNow(run, guardrail, enabled[i] as EnabledCheck, run.original, run.signal, clock);
    if (ran instanceof Promise) (pending ??= []).push(storeWhenSettled(results, i, ran));
    else results[i] = ran.result;
  }
  if (!pending) return guardrailResult(guardrail, results, false, elapsed(started, clock.last), created_at);
  return Promise.all(pending).then(() =>
    guardrailResult(guardrail, results, false, elapsed(started, performance.now()), created_at),
  );
}

/** Stores a pending check's result at its place once it settles. */
function storeWhenSettled(results: CheckResult[], i: number, ran: Promise<CheckRun>): Promise<void> {
  return ran.then((settled) => {
    results[i] = settled.result;
  });
}

/**
 * A guardrail whose checks read the content after the transforms before them: a sequential one
 * (all its checks, in order), or one with transforming checks (those in order, the others on the
 * content as received). Moves `run.chain` on past its transforms.
 */
function runChainedNow(
  run: PhaseRun,
  guardrail: Guardrail,
  { enabled }: GuardrailPlan,
  clock: PhaseClock,
): GuardrailResult | Promise<GuardrailResult> {
  const started = clock.start();
  const created_at = clock.iso(started);
  const count = enabled.length;
  const results: CheckResult[] = new Array(count);
  let changed = false;
  let stored = 0;
  let pending: Array<Promise<unknown>> | undefined;
  const own = run.signal;

  /** Runs check `i` on `content`, its result stored when it comes; a promise when it answered with one. */
  const one = (i: number, content: Content): CheckRun | Promise<CheckRun> => {
    const ran = runCheckNow(run, guardrail, enabled[i] as EnabledCheck, content, own, clock);
    if (ran instanceof Promise) {
      return ran.then((settled) => {
        results[i] = settled.result;
        stored++;
        return settled;
      });
    }
    results[i] = ran.result;
    stored++;
    return ran;
  };

  /** The chained checks from `from` on (all of them when sequential, else the transforming ones), reading `content`. */
  const chained = (from: number, content: Content): Content | Promise<Content> => {
    for (let i = from; i < count; i++) {
      if (!guardrail.sequential && (enabled[i] as EnabledCheck).check?.definition.transforms !== true) continue;
      const ran = one(i, content);
      if (ran instanceof Promise) {
        return ran.then(({ next }) => {
          if (next) {
            content = next;
            changed = true;
          }
          return guardrail.sequential && own?.aborted ? content : chained(i + 1, content);
        });
      }
      if (ran.next) {
        content = ran.next;
        changed = true;
      }
      if (guardrail.sequential && own?.aborted) break;
    }
    return content;
  };

  const previous = run.chain;
  const after = previous instanceof Promise ? previous.then((content) => chained(0, content)) : chained(0, previous);
  run.chain = after;
  if (after instanceof Promise) (pending ??= []).push(after);
  if (!guardrail.sequential) {
    for (let i = 0; i < count; i++) {
      if ((enabled[i] as EnabledCheck).check?.definition.transforms === true) continue;
      const ran = one(i, run.original);
      if (ran instanceof Promise) (pending ??= []).push(ran);
    }
  }

  // A sequential guardrail stops at a cancellation: the checks it did not run have no result.
  const ran = () => (stored === count ? results : results.filter(Boolean));
  if (!pending) return guardrailResult(guardrail, ran(), changed, elapsed(started, clock.last), created_at);
  return Promise.all(pending).then(() =>
    guardrailResult(guardrail, ran(), changed, elapsed(started, performance.now()), created_at),
  );
}
