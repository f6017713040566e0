/**
 * Writes request-log batches from a worker thread with its own SQLite connection. A request with
 * guardrails writes a row per guardrail and per check; on the event loop those transactions took
 * about a fifth of a busy gateway's time and, at each commit, stalled the requests waiting behind
 * them (docs/design.md, "Where a request's time goes"). SQLite's WAL mode lets the gateway's own
 * connection read and write beside this one.
 *
 * A thread that fails (crashes, or its database cannot open) fails the batches it held; the
 * batch writer retries them, and the next batch starts a fresh thread.
 */
import { Worker } from "node:worker_threads";
import { compiledModule } from "../../core/internal.js";
import type { NewLogEntry } from "../store/log-types.js";
import type { LogThreadData, WriteMessage, WrittenMessage } from "../store/sqlite/log-writer-thread.js";

const THREAD_PATH = ["dist", "server", "store", "sqlite", "log-writer-thread.js"];

/** A write the thread has not answered yet. */
interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

/** Request-log batches written by a worker thread into the SQLite file `file`. */
export class LogWriterThread {
  readonly #data: LogThreadData;
  readonly #entry: string;
  readonly #pending = new Map<number, Pending>();
  #worker: Worker | undefined;
  #next = 0;
  #closed = false;

  /** `lockWaitMs`: how long a batch waits for another process's write lock before it fails (and is retried). */
  constructor(file: string, options: { lockWaitMs?: number } = {}) {
    this.#data = { file, ...(options.lockWaitMs !== undefined && { lockWaitMs: options.lockWaitMs }) };
    // Found now, so a package that was never built fails at start, not at the first request.
    this.#entry = compiledModule(THREAD_PATH, "the request log's writer thread", "log_thread_missing");
  }

  /** Writes one batch in one transaction; resolves once it is committed. */
  insert(batch: NewLogEntry[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("the request log's writer thread is closed"));
    const worker = this.#thread();
    const id = this.#next++;
    return new Promise<void>((resolve, reject) => {
      // Held while it holds work, so the process does not exit with a batch unwritten.
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, batch } satisfies WriteMessage);
    });
  }

  /** Lets the thread finish what it holds, then ends it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const worker = this.#worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("close");
    await exited;
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.#entry, { workerData: this.#data });
    worker.on("message", (message: WrittenMessage) => {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      // Idle, it must not keep the process alive.
      if (this.#pending.size === 0) worker.unref();
      if (!message.error) return pending.resolve();
      pending.reject(Object.assign(new Error(message.error.message), message.error.code && { code: message.error.code }));
    });
    const fail = (error: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const [id, pending] of this.#pending) {
        this.#pending.delete(id);
        pending.reject(error);
      }
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the request log's writer thread exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }
}
