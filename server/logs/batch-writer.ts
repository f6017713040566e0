/**
 * Writes request logs in batches, off the request path. The queue is bounded: when it is full,
 * `write` waits for room (back-pressure slows the producers) instead of dropping a record. A batch
 * the store refuses is retried with a growing pause; `stop` writes everything still queued.
 */

/** Options of the writer. */
export interface BatchWriterOptions<T> {
  /** Writes one batch (all or nothing). */
  write: (batch: T[]) => Promise<void>;
  /** Records per batch; default 256. */
  maxBatch?: number;
  /** How long a record may wait for companions before its batch is written, ms; default 50. */
  flushIntervalMs?: number;
  /** Records held at most before `write` waits; default 10 000. */
  capacity?: number;
  /** Told about a failed batch write before it is retried (never with the records' contents). */
  onError?: (error: unknown, batchSize: number) => void;
  /** Attempts per batch once `stop` has begun, before giving up; default 5. */
  stopAttempts?: number;
}

/** Thrown by `stop` when the store would not take the last records. */
export class LogWriteError extends Error {
  readonly code = "log_write_failed";
  constructor(
    readonly unwritten: number,
    options?: { cause?: unknown },
  ) {
    super(`${unwritten} request log record(s) could not be written before stopping`, options);
  }
}

/** A bounded, batching, never-dropping writer. */
export class BatchWriter<T> {
  readonly #write: (batch: T[]) => Promise<void>;
  readonly #maxBatch: number;
  readonly #interval: number;
  readonly #capacity: number;
  readonly #onError: (error: unknown, batchSize: number) => void;
  readonly #stopAttempts: number;
  readonly #queue: T[] = [];
  #roomWaiters: Array<() => void> = [];
  #idleWaiters: Array<() => void> = [];
  #timer: NodeJS.Timeout | undefined;
  #draining: Promise<void> | undefined;
  #stopping = false;
  #stopped = false;
  /** Set when stopping and the store kept refusing: nothing more will be written. */
  #gaveUp = false;
  /** Records written so far. */
  written = 0;
  /** Records queued so far: record n (counting from 1) is stored once `written` reaches n (FIFO). */
  #queued = 0;
  #commitWaiters: Array<{ at: number; resolve: () => void; reject: (error: unknown) => void }> = [];

  constructor(options: BatchWriterOptions<T>) {
    this.#write = options.write;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#interval = options.flushIntervalMs ?? 50;
    this.#capacity = Math.max(options.capacity ?? 10_000, this.#maxBatch);
    this.#onError = options.onError ?? (() => {});
    this.#stopAttempts = options.stopAttempts ?? 5;
  }

  /** Records queued and not yet written. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Queues a record; resolves once it is queued, waiting while the queue is full. */
  async write(record: T): Promise<void> {
    await this.#enqueue(record);
  }

  /** Queues a record once there is room; resolves to its number in queue order. */
  async #enqueue(record: T): Promise<number> {
    if (this.#stopped) throw new Error("the request log writer has stopped; no record can be written");
    while (this.#queue.length >= this.#capacity) {
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
      if (this.#gaveUp) throw new LogWriteError(1);
    }
    this.#queue.push(record);
    const at = ++this.#queued;
    if (this.#queue.length >= this.#maxBatch) this.#drain();
    else this.#timer ??= setTimeout(() => this.#drain(), this.#interval);
    return at;
  }

  /**
   * Queues a record and resolves once it is written (stored by the store's own transaction). The
   * batch starts at once rather than after the flush interval: the caller is waiting.
   */
  async writeCommitted(record: T): Promise<void> {
    const at = await this.#enqueue(record);
    if (this.written >= at) return;
    const committed = new Promise<void>((resolve, reject) => this.#commitWaiters.push({ at, resolve, reject }));
    this.#drain();
    return committed;
  }

  /** Resolves once every record queued so far is written. */
  async flush(): Promise<void> {
    while ((this.#queue.length > 0 || this.#draining) && !this.#gaveUp) {
      this.#drain();
      await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    }
  }

  /** Writes everything queued (and everything that was waiting for room), then refuses new records. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopping = true;
    try {
      await this.flush();
    } finally {
      this.#stopped = true;
      if (this.#timer) clearTimeout(this.#timer);
    }
    if (this.#queue.length > 0) throw new LogWriteError(this.#queue.length);
  }

  #drain(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#draining) return;
    this.#draining = this.#run().finally(() => {
      this.#draining = undefined;
      const idle = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const resolve of idle) resolve();
      if (this.#gaveUp) for (const waiter of this.#commitWaiters.splice(0)) waiter.reject(new LogWriteError(1));
      // Records queued while the last batch was in flight wait for their own timer, unless a
      // caller waits for one of them.
      if (this.#queue.length > 0 && !this.#stopped) {
        if (this.#commitWaiters.length) this.#drain();
        else this.#timer ??= setTimeout(() => this.#drain(), this.#interval);
      }
    });
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (this.#queue.length > 0) {
      const batch = this.#queue.slice(0, this.#maxBatch);
      try {
        await this.#write(batch);
      } catch (error) {
        failures++;
        this.#onError(error, batch.length);
        if (this.#stopping && failures >= this.#stopAttempts) {
          this.#gaveUp = true;
          for (const resolve of this.#roomWaiters.splice(0)) resolve();
          return;
        }
        // Back off (up to 5 s) and retry the same batch: records are never dropped.
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 50 * 2 ** Math.min(failures, 7))));
        continue;
      }
      failures = 0;
      this.#queue.splice(0, batch.length);
      this.written += batch.length;
      if (this.#commitWaiters.length) {
        const written = this.written;
        for (const waiter of this.#commitWaiters) if (waiter.at <= written) waiter.resolve();
        this.#commitWaiters = this.#commitWaiters.filter((waiter) => waiter.at > written);
      }
      const waiters = this.#roomWaiters.splice(0, batch.length);
      for (const resolve of waiters) resolve();
      if (!this.#stopping && this.#queue.length < this.#maxBatch) break;
    }
  }
}
