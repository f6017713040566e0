/**
 * The check-latency harness: how long one check takes as the engine runs it (one guardrail
 * holding that check, on the calling thread), measured by tinybench after a warm-up. It measures
 * the check plus the runner's own work for one check, which is what a check adds to a phase.
 */
import { Bench } from "tinybench";
import type { EvaluateOptions } from "../engine.js";
import { GuardgateError } from "../errors.js";
import { type AnyCheck, type CheckTestInput, checkRun } from "./check-run.js";

/** How long to measure. */
export interface MeasureOptions {
  /** Least number of timed runs (default 200). */
  samples?: number;
  /** Least time to spend on timed runs, in milliseconds (default 500). */
  time?: number;
  /** Untimed runs first, so the JIT has compiled the check (default 20). */
  warmup?: number;
}

/** Latency of one check, in microseconds. */
export interface CheckLatency {
  /** Full id of the measured check. */
  check: string;
  samples: number;
  median_us: number;
  p99_us: number;
  mean_us: number;
  min_us: number;
  max_us: number;
  ops_per_s: number;
}

const micro = (ms: number) => Number((ms * 1000).toFixed(2));

/**
 * Measures a check on one input; throws when the check errors on it, so an error path is never
 * measured by mistake.
 */
export async function measureCheck(check: AnyCheck, input: CheckTestInput, options: MeasureOptions = {}): Promise<CheckLatency> {
  const run = await checkRun(check, input);
  try {
    const first = await run.engine.evaluate(run.options);
    const error = first.results[0]?.checks[0]?.error;
    if (error !== undefined) {
      throw new GuardgateError(
        "check_errored",
        `check ${run.id} errored on this input, so it is not measured: ${typeof error === "string" ? error : `${error.name}: ${error.message}`}`,
      );
    }
    // Prepared once: the samples time the phase, not the config's normalisation.
    const prepared = await run.engine.normalize({ [`${run.side}_guardrails`]: run.options.guardrails });
    const { guardrails: _guardrails, ...rest } = run.options;
    const timed: EvaluateOptions = { ...rest, prepared: prepared[run.side] };
    const bench = new Bench({
      iterations: options.samples ?? 200,
      time: options.time ?? 500,
      warmupIterations: options.warmup ?? 20,
      warmupTime: 0,
      throws: true,
    });
    bench.add(run.id, async () => {
      await run.engine.evaluate(timed);
    });
    await bench.run();
    const result = bench.tasks[0]?.result;
    if (!result || !("latency" in result)) throw new GuardgateError("bench_failed", `measuring ${run.id} did not complete`);
    const { latency } = result;
    return {
      check: run.id,
      samples: latency.samplesCount,
      median_us: micro(latency.p50),
      p99_us: micro(latency.p99),
      mean_us: micro(latency.mean),
      min_us: micro(latency.min),
      max_us: micro(latency.max),
      ops_per_s: Math.round(1000 / result.period),
    };
  } finally {
    await run.engine.close();
  }
}
