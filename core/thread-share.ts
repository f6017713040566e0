/**
 * Sharing the event loop during long work on the main thread: work that walks a megabyte (counting
 * its tokens, relaying its events) asks at each step whether its slice is used up and, if so,
 * awaits one turn of the event loop, so that no other request waits longer than about one slice,
 * however many workers share it.
 */

/** A slice of the thread's time, renewed after each turn given away. */
export class ThreadShare {
  /** How many turns the work gave the event loop. */
  turns = 0;
  #since = performance.now();
  #steps = 0;

  /**
   * @param sliceMs the longest the work keeps the thread between turns
   * @param clockEvery steps between looks at the clock, for steps much shorter than a slice
   */
  constructor(
    readonly sliceMs: number,
    readonly clockEvery = 1,
  ) {}

  /** The turn given away and not come yet. */
  #pending: Promise<void> | undefined;

  /** The next turn of the event loop when the slice is used up (await it), else undefined (go on). */
  due(): Promise<void> | undefined {
    // Workers sharing the thread (rows in flight) wait for the same turn: were each to take its
    // own, each would restart the slice when it came, and one turn would hold a slice per worker.
    if (this.#pending) return this.#pending;
    if (++this.#steps % this.clockEvery !== 0 || performance.now() - this.#since <= this.sliceMs) return undefined;
    this.turns++;
    this.#pending = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.#since = performance.now();
      this.#pending = undefined;
    });
    return this.#pending;
  }
}
