/**
 * The rate of feedback calls per API key, counted on the limit counters (in Redis when the
 * gateway's limits are, so a fleet shares the count), as API-key traffic is: a key sending
 * faster than its allowance is answered 429 with `retry-after` until the window lets it in.
 */
import type { Counters } from "../limits/counters.js";
import { FEEDBACK_LIMITS } from "./feedback.js";

const WINDOW_MS = 60_000;

/** Options of the feedback rate. */
export interface FeedbackRateOptions {
  counters: Counters;
  /** Calls a key may make per minute; default FEEDBACK_LIMITS.perMinute. */
  perMinute?: number;
  now?: () => number;
}

export class FeedbackRate {
  readonly #counters: Counters;
  readonly #perMinute: number;
  readonly #now: () => number;

  constructor(options: FeedbackRateOptions) {
    this.#counters = options.counters;
    this.#perMinute = options.perMinute ?? FEEDBACK_LIMITS.perMinute;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one call of the key; resolves to 0 when it may go on, else the seconds it must wait. */
  async take(keyId: string): Promise<number> {
    const taken = await this.#counters.take(`feedback:key:${keyId}`, WINDOW_MS, this.#perMinute, 1, this.#now());
    return taken.allowed ? 0 : Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
  }

  get perMinute(): number {
    return this.#perMinute;
  }
}
