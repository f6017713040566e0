/**
 * Request logs: one record per request, written when the response is finished and every
 * asynchronous guardrail has reported. The sink is an interface; the in-memory ring here keeps the
 * most recent records, and a store can implement the same interface.
 */
import type { GuardrailResult } from "../../core/index.js";

/** One upstream call (or cache lookup, or mock answer) made for a request. */
export interface AttemptRecord {
  /** Config path of the target, `""` for the root. */
  target: string;
  provider?: string;
  model?: string;
  status: number;
  latency_ms: number;
  cache_status?: "HIT" | "MISS";
  error?: { code: string; message: string };
  /**
   * The synchronous guardrail results of this attempt (spec §1 rule 8: every result is recorded):
   * the input side where it ran, and this attempt's output side. The record's own `hook_results`
   * stay those of the final attempt.
   */
  hook_results?: { before_request_hooks: GuardrailResult[]; after_request_hooks: GuardrailResult[] };
}

/** What the log keeps about one request. Never holds credentials. */
export interface RequestLogRecord {
  id: string;
  created_at: string;
  workspace_id: string;
  api_key_id: string;
  route: string;
  request_type: string;
  stream: boolean;
  status: number;
  latency_ms: number;
  config_id?: string;
  provider?: string;
  model?: string;
  cache_status?: "HIT" | "MISS";
  attempts: AttemptRecord[];
  /** Every guardrail result of the final attempt, synchronous and asynchronous. */
  hook_results: { before_request_hooks: GuardrailResult[]; after_request_hooks: GuardrailResult[] };
  /**
   * True when a synchronous output guardrail denied a streamed response. In `after` mode the text
   * was already sent, so the deny is reported (and recorded here) but not enforced.
   */
  stream_output_denied?: boolean;
  /** True when streamed output guardrails were skipped because the stream carried no text. */
  stream_output_skipped?: boolean;
  /** A stream the gateway stopped after it began: by which guardrails, after how much text (docs/streaming.md). */
  stream_stop?: { guardrails: string[]; released_chars: number; mode: string };
  error?: { code: string; message: string };
  /** Bodies, only when the gateway is set to log them; capped (body-cap.ts). */
  request?: unknown;
  response?: unknown;
  /** Why a logged body is cut or left out, by body, when one is. */
  body_notes?: { request?: string; response?: string };
}

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
