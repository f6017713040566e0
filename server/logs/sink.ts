/**
 * Request logs: one record per request (record.ts), written when the response is finished and
 * every asynchronous guardrail has reported. The sink is an interface; the in-memory ring here
 * keeps the most recent records, and the store sink (store-sink.ts) implements the same one.
 */
import type { RequestLogRecord } from "./record.js";

/** Receives finished request records. */
export interface RequestLogSink {
  /** Accepts a record; with `committed`, resolves only once the record is durably stored. */
  write(record: RequestLogRecord, options?: { committed?: boolean }): Promise<void>;
}

/** Keeps the last `capacity` records in memory. */
export class InMemoryRequestLogSink implements RequestLogSink {
  readonly #records: RequestLogRecord[] = [];
  readonly #capacity: number;
  #waiters: Array<{ predicate: (r: RequestLogRecord) => boolean; resolve: (r: RequestLogRecord) => void }> = [];

  constructor(capacity = 1000) {
    this.#capacity = capacity;
  }

  async write(record: RequestLogRecord): Promise<void> {
    this.#records.push(record);
    if (this.#records.length > this.#capacity) this.#records.shift();
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiting) {
      if (waiter.predicate(record)) waiter.resolve(record);
      else this.#waiters.push(waiter);
    }
  }

  /** The records held, oldest first. */
  list(): RequestLogRecord[] {
    return this.#records.slice();
  }

  /** Resolves with the first record (held or yet to come) that matches. */
  waitFor(predicate: (record: RequestLogRecord) => boolean): Promise<RequestLogRecord> {
    const found = this.#records.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ predicate, resolve }));
  }
}
