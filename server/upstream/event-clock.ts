/**
 * How long an upstream stream takes to complete each event. `request_timeout` bounds each silence,
 * so an upstream that sends a byte every few seconds and never completes an event would hold the
 * stream, its connection and its client forever; this clock bounds the time between complete
 * events (`stream_event_timeout`). Only time spent waiting on the upstream counts: while the
 * client is slow to read, the gateway does not read either, and the upstream is not to blame.
 */
import { EventStreamFraming } from "../formats/event-stream.js";
import { SseFraming } from "../formats/sse.js";

/** Counts the events a chunk completes, in the framing of the stream's content type. */
export function eventCounter(contentType: string): (chunk: Buffer) => number {
  if (contentType.includes("application/vnd.amazon.eventstream")) {
    const framing = new EventStreamFraming();
    return (chunk) => framing.ends(chunk);
  }
  // Every other stream the gateway relays is read as server-sent events.
  const framing = new SseFraming();
  return (chunk) => framing.ends(chunk).length;
}

/**
 * Calls `onStall` once the upstream was waited on for `budgetMs` since its last complete event,
 * with the length of the current wait (a silence, which `request_timeout` may name instead).
 */
export class EventClock {
  readonly #budgetMs: number;
  readonly #onStall: (silentMs: number) => void;
  /** Waiting time since the last complete event, before the current wait. */
  #waited = 0;
  #waitingSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(budgetMs: number, onStall: (silentMs: number) => void) {
    this.#budgetMs = budgetMs;
    this.#onStall = onStall;
  }

  /** The gateway waits on the upstream for its next chunk. */
  waiting(): void {
    this.#waitingSince = performance.now();
    // One timer per stream, re-armed for what is left when it fires: nothing is allocated per chunk.
    this.#timer ??= this.#arm(this.#budgetMs - this.#waited);
  }

  /** A chunk arrived, completing `events` events. */
  arrived(events: number): void {
    if (this.#waitingSince !== undefined) this.#waited += performance.now() - this.#waitingSince;
    this.#waitingSince = undefined;
    if (events > 0) this.#waited = 0;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#check(), Math.max(ms, 1));
    timer.unref();
    return timer;
  }

  #check(): void {
    const silent = this.#waitingSince === undefined ? 0 : performance.now() - this.#waitingSince;
    const waited = this.#waited + silent;
    if (waited >= this.#budgetMs) {
      this.#timer = undefined;
      this.#onStall(silent);
      return;
    }
    this.#timer = this.#arm(this.#budgetMs - waited);
  }
}
