/**
 * What other requests meet while one piece of work runs: `/health` asked every 2 ms, and the
 * event loop's longest delay, folded into a row over repeated runs (bench:stalls).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

/** The figures a stall row keeps, the worst over its runs. */
export interface StallFigures {
  probes: number;
  worstHealthMs: number;
  worstLoopDelayMs: number;
}

/** Runs `work` while probing `/health` (`health` gives one answer's time, ms), folding the worst figures into `row`. */
export async function watchHealth<T>(row: StallFigures, health: () => Promise<number>, work: () => Promise<T>): Promise<T> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let working = true;
  const prober = (async () => {
    while (working) {
      row.worstHealthMs = Math.max(row.worstHealthMs, await health());
      row.probes++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  try {
    return await work();
  } finally {
    working = false;
    await prober;
    loop.disable();
    row.worstLoopDelayMs = Math.max(row.worstLoopDelayMs, loop.max / 1e6);
  }
}
