/**
 * What each check costs, learned from the `execution_time` of its own results: an exponentially
 * weighted mean in microseconds per check and size class of the evaluated text (powers of two).
 * No cost model is assumed, so a check added later is measured like the others, and a check never
 * measured at a size has no estimate. Runs on the calling thread (`learn`) move the estimate
 * either way; runs in a worker (`lower`) only lower it, since a worker's time includes waiting
 * for a core, which is not what the check would cost the event loop.
 */

const CLASSES = 33;
/** Weight of the newest sample: recent runs dominate. */
const WEIGHT = 0.2;
/**
 * A sample counts for at most this many times the mean: a garbage collection or a preemption
 * inside a check made one run in eight of a 30 µs phase look costlier than the 50 µs budget and
 * sent it to the pool. A check that really became slower still gets there, by a fifth per run.
 */
const OUTLIER = 2;

/** Size class of a text: 0 for empty, else the bit length of its length (1, 2–3, 4–7, …). */
export function sizeClass(chars: number): number {
  return chars <= 0 ? 0 : Math.min(CLASSES - 1, 32 - Math.clz32(chars));
}

/** Learned costs of checks, in µs, by size class. */
export class CheckCosts {
  readonly #means = new Map<string, Float64Array>();

  /** The learned cost of a check on a text of `chars` characters; undefined until measured. */
  estimate(checkId: string, chars: number): number | undefined {
    const mean = this.#means.get(checkId)?.[sizeClass(chars)];
    return mean === undefined || Number.isNaN(mean) ? undefined : mean;
  }

  /** Records one measured run. */
  learn(checkId: string, chars: number, micros: number): void {
    let means = this.#means.get(checkId);
    if (!means) {
      means = new Float64Array(CLASSES).fill(Number.NaN);
      this.#means.set(checkId, means);
    }
    const k = sizeClass(chars);
    const mean = means[k] as number;
    means[k] = Number.isNaN(mean) ? micros : mean + WEIGHT * (Math.min(micros, OUTLIER * mean) - mean);
  }

  /**
   * Records a run timed where its wall-clock time is an upper bound of its cost (a worker
   * thread): it sets a first estimate, and afterwards can only lower one, by the same weight.
   */
  lower(checkId: string, chars: number, micros: number): void {
    const mean = this.#means.get(checkId)?.[sizeClass(chars)];
    if (mean === undefined || Number.isNaN(mean) || micros < mean) this.learn(checkId, chars, micros);
  }
}
