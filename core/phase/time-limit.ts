/**
 * One check's `run` under its time limit and the phase's abort signal. Kept apart from building
 * the check's result (run-check.ts) because this is the part that deals with timers, signals and
 * checks that never settle, and the part a pool worker's watch attaches to.
 */
import { CheckAbortedError, CheckTimeoutError } from "../errors.js";
import type { CheckContext, CheckOutcome } from "../plugin-api.js";
import type { RegisteredCheck } from "../registry.js";
import type { CheckConfig } from "../types.js";
import type { RunContext } from "./check-context.js";
import type { CheckWatch } from "./task.js";

/** When a check's run ended, for its execution_time: checks of a phase interleave, so the end is noted where it happens. */
export interface Timing {
  end: number;
}

/** A cancellation's reason when it was given in words (a deny, a caller's string), else none. */
function abortReason(signal: AbortSignal | undefined): string | undefined {
  return typeof signal?.reason === "string" ? signal.reason : undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/**
 * Runs a check's `run` under its time limit and the phase's abort signal. A check that blocks
 * the thread cannot be interrupted here; when it returns after its limit, its result is discarded
 * and it counts as timed out all the same (in a pool worker, the main thread cuts it off sooner).
 * A check that answers synchronously needs no timer, and gets no promise either: its outcome is
 * returned, or its error thrown, at once (most checks are synchronous, and a promise per check
 * was a measurable share of a cheap phase).
 */
export function runWithLimit(
  check: RegisteredCheck,
  config: CheckConfig,
  build: (signal: () => AbortSignal) => CheckContext,
  phaseSignal: AbortSignal | undefined,
  slot: number,
  watch: CheckWatch | undefined,
  timing: Timing,
): CheckOutcome | Promise<CheckOutcome> {
  const timeout = config.timeout ?? check.defaultTimeout;
  if (phaseSignal?.aborted) throw new CheckAbortedError(check.id, abortReason(phaseSignal));
  // Most checks answer synchronously and never look at their signal: it is made on first read.
  let controller: AbortController | undefined;
  let stopped: Error | undefined;
  const signal = () => {
    if (!controller) {
      controller = new AbortController();
      if (stopped) controller.abort(stopped);
    }
    return controller.signal;
  };
  const started = performance.now();
  watch?.started(slot, timeout);
  let value: unknown;
  try {
    value = check.definition.run(build(signal), config.parameters);
  } catch (error) {
    timing.end = performance.now();
    watch?.finished(slot);
    throw error;
  }
  if (!isThenable(value)) {
    timing.end = performance.now();
    watch?.finished(slot);
    if (timing.end - started > timeout) throw new CheckTimeoutError(check.id, timeout);
    return value as CheckOutcome;
  }
  return underLimit(
    value,
    check.id,
    timeout,
    phaseSignal,
    started,
    timing,
    (error) => {
      stopped = error;
      controller?.abort(error);
    },
    watch,
    slot,
  );
}

/**
 * `runWithLimit` for a check whose context holds its own signal (RunContext) and whose start the
 * caller read already: a synchronous phase reads the clock once per check, at its end.
 */
export function runNowWithLimit(
  check: RegisteredCheck,
  config: CheckConfig,
  context: RunContext,
  phaseSignal: AbortSignal | undefined,
  started: number,
  timing: Timing,
): CheckOutcome | Promise<CheckOutcome> {
  const timeout = config.timeout ?? check.defaultTimeout;
  if (phaseSignal?.aborted) throw new CheckAbortedError(check.id, abortReason(phaseSignal));
  let value: unknown;
  try {
    value = check.definition.run(context, config.parameters);
  } catch (error) {
    timing.end = performance.now();
    throw error;
  }
  if (!isThenable(value)) {
    timing.end = performance.now();
    if (timing.end - started > timeout) throw new CheckTimeoutError(check.id, timeout);
    return value as CheckOutcome;
  }
  return underLimit(value, check.id, timeout, phaseSignal, started, timing, stopperOf(context));
}

/** What cancels a context's own signal; made apart so runNowWithLimit captures nothing, and allocates no closure context per check. */
function stopperOf(context: RunContext): (error: Error) => void {
  return (error) => context.stop(error);
}

/** A pending outcome under the check's time limit and the phase's signal; `stop` cancels the check's own signal. */
function underLimit(
  value: PromiseLike<unknown>,
  id: string,
  timeout: number,
  phaseSignal: AbortSignal | undefined,
  started: number,
  timing: Timing,
  stop: (error: Error) => void,
  watch?: CheckWatch,
  slot = 0,
): Promise<CheckOutcome> {
  return new Promise<CheckOutcome>((resolve, reject) => {
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      timing.end = performance.now();
      clearTimeout(timer);
      phaseSignal?.removeEventListener("abort", onAbort);
      watch?.finished(slot);
      return true;
    };
    const cut = (error: Error) => {
      if (!settle()) return;
      stop(error);
      reject(error);
    };
    const onAbort = () => cut(new CheckAbortedError(id, abortReason(phaseSignal)));
    const timer = setTimeout(() => cut(new CheckTimeoutError(id, timeout)), Math.max(0, timeout - (performance.now() - started)));
    phaseSignal?.addEventListener("abort", onAbort, { once: true });
    value.then(
      (outcome) => {
        if (!settle()) return;
        if (timing.end - started > timeout) reject(new CheckTimeoutError(id, timeout));
        else resolve(outcome as CheckOutcome);
      },
      (error: unknown) => {
        if (settle()) reject(error);
      },
    );
  });
}
