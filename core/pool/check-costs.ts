/**
 * What each check costs, learned from the `execution_time` of its own results: the least of its
 * recent runs, in microseconds per check and size class of the evaluated text (powers of two).
 * A run's wall-clock time is its cost plus whatever else held the core meanwhile (another
 * process, a garbage collection, a worker waiting for a core, the profiler's interrupts), which
 * only ever adds; the least of the last few runs is therefore the closest to what the check
 * costs, and one that really became dearer shows it once all of them did. No cost model is
 * assumed, so a check added later is measured like the others, and a check never measured at a
 * size has no estimate.
 */

const CLASSES = 33;
/**
 * Runs remembered per check and size class. A mean of every run (weighted, each capped at twice
 * the mean) followed a loaded machine's delays: in `guardgate serve` at load average 10–14 it put
 * the standard pack over the budget for three phases in four, where the pool's hand-over costs
 * the event loop more than the phase (docs/performance.md).
 */
const WINDOW = 16;

/** Size class of a text: 0 for empty, else the bit length of its length (1, 2–3, 4–7, …). */
export function sizeClass(chars: number): number {
  return chars <= 0 ? 0 : Math.min(CLASSES - 1, 32 - Math.clz32(chars));
}

/** The last WINDOW runs of one check on one size class, and where the next one goes. */
interface Runs {
  micros: Float64Array;
  next: number;
  count: number;
  /** The least of them, kept as runs come and go: every phase reads it. */
  least: number;
}

/** Learned costs of checks, in µs, by size class. */
export class CheckCosts {
  readonly #runs = new Map<string, Array<Runs | undefined>>();

  /** The learned cost of a check on a text of `chars` characters; undefined until measured. */
  estimate(checkId: string, chars: number): number | undefined {
    return this.#runs.get(checkId)?.[sizeClass(chars)]?.least;
  }

  /** Records one measured run. */
  learn(checkId: string, chars: number, micros: number): void {
    let byClass = this.#runs.get(checkId);
    if (!byClass) {
      byClass = new Array<Runs | undefined>(CLASSES).fill(undefined);
      this.#runs.set(checkId, byClass);
    }
    const k = sizeClass(chars);
    let runs = byClass[k];
    if (!runs) {
      runs = { micros: new Float64Array(WINDOW), next: 0, count: 0, least: micros };
      byClass[k] = runs;
    }
    const dropped = runs.count === WINDOW ? (runs.micros[runs.next] as number) : Number.POSITIVE_INFINITY;
    runs.micros[runs.next] = micros;
    runs.next = (runs.next + 1) % WINDOW;
    if (runs.count < WINDOW) runs.count++;
    if (micros <= runs.least) runs.least = micros;
    else if (dropped === runs.least) {
      let least = Number.POSITIVE_INFINITY;
      for (let i = 0; i < runs.count; i++) least = Math.min(least, runs.micros[i] as number);
      runs.least = least;
    }
  }
}
