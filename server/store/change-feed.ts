/**
 * A change feed within one process: the store announces every write it makes, and caches drop
 * what an event names. Listener failures are isolated so one bad listener cannot stop the others.
 */
import type { ChangeEvent, ChangeFeed } from "./repository.js";

/** Calls every subscribed listener, in subscription order, for each event. */
export class LocalChangeFeed implements ChangeFeed {
  readonly #listeners = new Set<(event: ChangeEvent) => void>();

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Announces one change. */
  emit(event: ChangeEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        // A cache that fails to drop an entry must not stop the others from dropping theirs.
        process.emitWarning(`a change listener failed: ${(error as Error).message}`);
      }
    }
  }
}
