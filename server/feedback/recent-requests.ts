/**
 * The request ids this instance answered lately, with their workspace. Feedback may arrive right
 * after its answer, before the request's record is written (the log writer batches, and
 * asynchronous guardrails still run): an id found here is known although the store has no log yet.
 * Bounded in count and age, so a busy gateway holds at most `capacity` small entries.
 */

/** Default bounds: about 10 minutes of answers, at most 50,000 of them. */
export const RECENT_REQUESTS_CAPACITY = 50_000;
export const RECENT_REQUESTS_MAX_AGE_MS = 10 * 60_000;

export class RecentRequests {
  /** Insertion order is age order: the oldest entry is the first one. */
  readonly #entries = new Map<string, { workspaceId: string; at: number }>();

  constructor(
    private readonly capacity = RECENT_REQUESTS_CAPACITY,
    private readonly maxAgeMs = RECENT_REQUESTS_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes that `id` was answered to a caller of `workspaceId`. */
  add(id: string, workspaceId: string): void {
    this.#entries.set(id, { workspaceId, at: this.now() });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** The workspace `id` was answered to, if it was answered here lately. */
  workspaceOf(id: string): string | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.maxAgeMs) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry.workspaceId;
  }

  get size(): number {
    return this.#entries.size;
  }
}
