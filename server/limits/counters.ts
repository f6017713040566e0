/**
 * Counters behind rate limits and budgets. The interface is what a shared implementation (Redis,
 * for several gateway instances) provides too: each method is one atomic step on one key, so two
 * instances never both take the last request of a window.
 *
 * Rate limits use a sliding window counter: the count of the current fixed window plus the
 * previous window's count weighted by how much of it still overlaps the sliding window. Two
 * numbers per key, and within a few percent of an exact sliding log.
 */

/** The answer to a take. */
export interface TakeResult {
  allowed: boolean;
  /** The sliding count after the take (before it, when refused). */
  count: number;
  /** When refused: milliseconds until the take would be allowed. */
  retryAfterMs: number;
}

/** Atomic counters for limits. Keys are opaque strings. */
export interface Counters {
  /** Adds `amount` to the sliding window of `key` when the count stays within `limit`. */
  take(key: string, windowMs: number, limit: number, amount: number, now: number): Promise<TakeResult>;
  /** Adds `amount` (may be negative, to give a take back) whatever the count. */
  add(key: string, windowMs: number, amount: number, now: number): Promise<void>;
  /** The sliding count of `key`. */
  count(key: string, windowMs: number, now: number): Promise<number>;
  /** A running total (spend), or undefined when the key was never set. */
  total(key: string): Promise<number | undefined>;
  /** Sets a total only when it is not set yet; resolves to the total held. */
  seedTotal(key: string, value: number): Promise<number>;
  /** Adds to a total that was seeded; resolves to the new total. */
  addTotal(key: string, amount: number): Promise<number>;
}

/** The sliding count from the two fixed windows around `now`. */
export function slidingCount(previous: number, current: number, windowMs: number, now: number): number {
  const elapsed = (now % windowMs) / windowMs;
  return previous * (1 - elapsed) + current;
}

/**
 * Milliseconds until `amount` more fits under `limit`, given the two windows. Waits for the
 * previous window's weight to fall off, or, when the current window alone is over, for the next
 * window in which the current count (then the previous one) has faded enough.
 */
export function retryAfterMs(
  previous: number,
  current: number,
  windowMs: number,
  now: number,
  limit: number,
  amount: number,
): number {
  const windowStart = now - (now % windowMs);
  const room = limit - amount;
  if (room < 0) return windowMs * 2;
  if (current <= room) {
    // Only the previous window's weight is in the way: previous * (1 - e) <= room - current.
    if (previous <= 0) return 0;
    const e = 1 - (room - current) / previous;
    return Math.max(0, Math.ceil(windowStart + e * windowMs - now));
  }
  // Next window: current becomes previous; current * (1 - e) <= room.
  const e = current <= 0 ? 0 : 1 - room / current;
  return Math.max(0, Math.ceil(windowStart + windowMs + e * windowMs - now));
}

interface Window {
  start: number;
  previous: number;
  current: number;
}

/** Counters in this process's memory: right for one gateway instance. */
export class MemoryCounters implements Counters {
  readonly #windows = new Map<string, Window>();
  readonly #totals = new Map<string, number>();

  #window(key: string, windowMs: number, now: number): Window {
    const start = now - (now % windowMs);
    let w = this.#windows.get(key);
    if (!w) {
      w = { start, previous: 0, current: 0 };
      this.#windows.set(key, w);
    } else if (w.start !== start) {
      // One window on: the current count becomes the previous; further on, both are stale.
      w.previous = start - w.start === windowMs ? w.current : 0;
      w.current = 0;
      w.start = start;
    }
    if (this.#windows.size > 10_000) this.#sweep(now, windowMs);
    return w;
  }

  /** Drops windows that no longer count (older than two windows). */
  #sweep(now: number, windowMs: number): void {
    for (const [key, w] of this.#windows) if (now - w.start >= 2 * windowMs) this.#windows.delete(key);
  }

  async take(key: string, windowMs: number, limit: number, amount: number, now: number): Promise<TakeResult> {
    const w = this.#window(key, windowMs, now);
    const count = slidingCount(w.previous, w.current, windowMs, now);
    if (count + amount > limit) {
      return { allowed: false, count, retryAfterMs: retryAfterMs(w.previous, w.current, windowMs, now, limit, amount) };
    }
    w.current += amount;
    return { allowed: true, count: count + amount, retryAfterMs: 0 };
  }

  async add(key: string, windowMs: number, amount: number, now: number): Promise<void> {
    const w = this.#window(key, windowMs, now);
    w.current = Math.max(0, w.current + amount);
  }

  async count(key: string, windowMs: number, now: number): Promise<number> {
    const w = this.#window(key, windowMs, now);
    return slidingCount(w.previous, w.current, windowMs, now);
  }

  async total(key: string): Promise<number | undefined> {
    return this.#totals.get(key);
  }

  async seedTotal(key: string, value: number): Promise<number> {
    const held = this.#totals.get(key);
    if (held !== undefined) return held;
    this.#totals.set(key, value);
    return value;
  }

  async addTotal(key: string, amount: number): Promise<number> {
    const total = (this.#totals.get(key) ?? 0) + amount;
    this.#totals.set(key, total);
    return total;
  }
}
