/**
 * The streamed answer (docs/streaming.md). In `after` mode upstream events pass through as they
 * complete, with nothing added to their timing, and the output side runs on the whole text at the
 * end. In `window` mode text waits in a TextHold until a check of its window with the held-back
 * tail passed (every `window` characters; every check once more on the whole text at the end); in
 * `buffer` mode it waits for the one check at the end. A deny before any byte left becomes a 446
 * answer (`open`); after, it ends the stream at once with the format's error event, as does an
 * upstream that breaks off or ends without its terminal event. When strict compliance is
 * off a first `hook_results` event carries the input side and a last one, before `[DONE]` /
 * `message_stop`, the output side (spec §6). Output guardrails never run on an empty text.
 */
import type { Evaluation, HookResults, RequestType, StreamMode } from "../../core/index.js";
import type { Opening, RelayOptions, RelaySummary, StreamStop } from "./relay-types.js";

export type { Opening, RelayOptions, RelaySummary, StreamStop } from "./relay-types.js";
import { ThreadShare } from "../../core/internal.js";
import { FORMATS, type FormatName, formatOfRequestType } from "../formats/index.js";
import { isWhole, readAlike, type StreamText } from "../formats/format.js";
import { denialOf, GatewayError } from "../errors.js";
import { type SseEvent, SseSplitter } from "../formats/sse.js";
import { joinedSegments, ReleasedTextChanged, sameSegments, TextHold } from "./text-hold.js";

/**
 * The most a held stream may hold, in bytes of upstream events. An answer is bounded by the
 * request's max_tokens, but the gateway does not trust that: past this, the stream fails closed.
 */
export const MAX_HELD_BYTES = 32 * 1024 * 1024;

/**
 * What is gathered of a stream no output guardrail reads, in bytes of upstream events: enough for
 * the log's capped body and the usage estimate (scaled by the share gathered), so a stream passed
 * through costs the gateway the same memory however long it runs.
 */
export const PASS_THROUGH_GATHER_BYTES = 1024 * 1024;

/** The longest a stream keeps the thread between turns given to other requests. */
const RELAY_SLICE_MS = 2;

/** The `hook_results` event in the endpoint's format. */
export function hookEvent(format: FormatName, hookResults: Partial<HookResults>): Buffer {
  return FORMATS[format].hookEvent(hookResults);
}

/**
 * Check time a held stream may use, in milliseconds summed over its checks, when the settings name
 * none (`stream_check_budget_ms`). Window checks cost time linear in the stream's length, but a
 * long enough stream still costs without end; past this the stream fails closed.
 */
export const DEFAULT_STREAM_CHECK_BUDGET_MS = 30_000;

/** Milliseconds the checks of an evaluation took, summed. */
function checkTime(evaluation: Evaluation): number {
  let total = 0;
  for (const result of evaluation.results) for (const check of result.checks) total += check.execution_time;
  return total;
}

/** Relays one upstream stream to one client, enforcing the target's output guardrails on it as it passes. */
export class StreamEnforcer {
  readonly #options: RelayOptions;
  readonly #requestType: RequestType;
  readonly #mode: StreamMode;
  readonly #window: number;
  readonly #iterator: AsyncIterator<Buffer>;
  readonly #splitter = new SseSplitter();
  // A source that has its events at hand (the mock, a burst of buffered chunks) would otherwise be
  // relayed to its end in one go: the socket takes the writes at once, so nothing waits for I/O.
  readonly #share = new ThreadShare(RELAY_SLICE_MS);
  readonly #text: StreamText;
  readonly #hold: TextHold | undefined;
  /** Events of the last read not taken in yet, from `#next` on. */
  #events: SseEvent[] = [];
  #next = 0;
  /** Bytes ready to leave, in order. */
  #ready: Buffer[] = [];
  /** The upstream's bytes sent last: an error event of a format that numbers its events continues from them. */
  #lastSent: Buffer | undefined;
  /** The terminal event and whatever followed it: sent last, once the output side ran. */
  readonly #terminal: SseEvent[] = [];
  #checkedAt = 0;
  /** Event bytes gathered into the text, and skipped past the gathering limit, of a stream not held. */
  #gatheredBytes = 0;
  #skippedBytes = 0;
  /** Check time spent on this stream so far, ms. */
  #checkTime = 0;
  #done = false;
  #final = false;
  #output: Evaluation | undefined;
  /** The body of the whole answer as the last check transformed it, when it did. */
  #delivered: Record<string, unknown> | undefined;
  #outputSkipped = false;
  #error: unknown;
  #stop: StreamStop | undefined;
  /** How the stream ended, once it has: the pipeline builds the request's record from it. */
  readonly #summary: Promise<RelaySummary>;
  #summarise!: (summary: RelaySummary) => void;

  constructor(options: RelayOptions) {
    this.#options = options;
    this.#summary = new Promise((resolve) => {
      this.#summarise = resolve;
    });
    const { node, phase } = options.leaf;
    this.#requestType = phase.requestType;
    // Without synchronous output guardrails there is nothing to hold text for.
    this.#mode = node.output.sync.length ? node.stream.mode : "after";
    this.#window = this.#mode === "buffer" ? Number.POSITIVE_INFINITY : node.stream.window;
    this.#iterator = options.source[Symbol.asyncIterator]();
    this.#text = formatOfRequestType(this.#requestType).streamText(this.#requestType);
    if (this.#mode !== "after") this.#hold = new TextHold(this.#text, node.stream.tail);
  }

  /** The mode this stream is held in. */
  get mode(): StreamMode {
    return this.#mode;
  }

  /**
   * For a held stream: reads until the first bytes may leave, so the status can still follow the
   * output side. A deny with nothing released is `denied`; an upstream failure with nothing
   * released is thrown (the attempt failed like any other).
   */
  async open(): Promise<Opening> {
    if (this.#mode === "after") return { kind: "open" };
    try {
      while (!this.#ready.length && !this.#stop && !this.#done) await this.#read();
      if (this.#done && !this.#stop && !this.#ready.length) await this.#finish();
    } catch (error) {
      await this.#close();
      throw error;
    }
    if (this.#stop && this.#output?.status === 446 && this.#hold?.releasedChars === 0) {
      await this.#close();
      return { kind: "denied", output: this.#output };
    }
    return this.#output ? { kind: "open", outputStatus: this.#output.status } : { kind: "open" };
  }

  /** Frees the upstream without relaying it. */
  discard(): Promise<void> {
    return this.#close();
  }

  /** Resolves with how the stream ended once \`relay\`'s bytes have ended (or been abandoned). */
  get ended(): Promise<RelaySummary> {
    return this.#summary;
  }

  /** The bytes to send; when they end, \`ended\` resolves with how. */
  async *relay(options: { strict: boolean }): AsyncGenerator<Buffer> {
    const { leaf, format } = this.#options;
    const reportHooks = !options.strict && (leaf.node.input.sync.length > 0 || leaf.node.output.sync.length > 0);
    const place = FORMATS[format].placeOpeningHook;
    // The opening event goes first, or where the format's SDKs read it (placeOpeningHook).
    let opening = reportHooks ? hookEvent(format, { before_request_hooks: leaf.input?.results ?? [] }) : undefined;
    try {
      if (opening && !place) {
        yield opening;
        opening = undefined;
      }
      for (;;) {
        if (this.#ready.length) {
          let out = this.#ready.length === 1 ? (this.#ready[0] as Buffer) : Buffer.concat(this.#ready);
          this.#ready = [];
          const placed = opening && place?.(out, opening);
          if (placed) [out, opening] = [placed, undefined];
          this.#lastSent = out;
          yield out;
        }
        if (this.#stop || this.#error !== undefined) break;
        if (this.#done && !this.#events.length && this.#final) break;
        try {
          // The upstream ended: the last check; else the next event.
          if (this.#done && !this.#events.length) await this.#finish();
          else await this.#read();
        } catch (error) {
          this.#error = error;
        }
      }
      // A stream that never reached the place still reports its input side.
      if (opening) yield opening;
      if (this.#stop) yield this.#stopEvent(reportHooks);
      else if (this.#error !== undefined) yield this.#brokenEvent();
      else {
        if (reportHooks && this.#output) yield hookEvent(format, { after_request_hooks: this.#output.results });
        for (const event of this.#terminal) yield (this.#hold && this.#text.echo?.(event)) || event.raw;
      }
    } finally {
      if (!this.#done) await this.#close();
      const summary: RelaySummary = {
        ...this.#received(),
        upstreamText: this.#text.text(),
        outputSkipped: this.#outputSkipped,
        ...(this.#skippedBytes > 0 && { textShare: this.#gatheredBytes / (this.#gatheredBytes + this.#skippedBytes) }),
        ...(this.#output && { output: this.#output }),
        ...(this.#error !== undefined && { error: this.#error }),
        ...(this.#stop && { stop: this.#stop }),
      };
      this.#summarise(summary);
    }
  }

  /** What the client received, for the log: a held stream's released texts, or all of a stream passed through. */
  #received(): { text: string; body: Record<string, unknown> } {
    const hold = this.#hold;
    if (!hold) return { text: this.#text.text(), body: this.#text.body() };
    const released = hold.releasedTexts();
    const text = [...released.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, t]) => t)
      .join("\n");
    // A stream released whole after its last check: the answer, as that check left it.
    if (this.#final && !this.#stop && this.#error === undefined && !hold.heldBytes)
      return { text, body: this.#delivered ?? this.#text.body() };
    return { text, body: this.#text.windowBody(released) };
  }

  /**
   * Takes the next upstream event in (reading a chunk when none is waiting), and checks the text
   * when a window's worth arrived since the last check, so windows are checked one by one however
   * the upstream's reads cut the stream. Without a hold a whole read passes at once. Marks the
   * stream done when the upstream ended.
   */
  async #read(): Promise<void> {
    const hold = this.#hold;
    if (!this.#events.length) {
      const next = await this.#iterator.next();
      if (next.done) {
        this.#done = true;
        this.#ended();
        return;
      }
      const events = this.#splitter.push(next.value);
      if (!hold) {
        for (const event of events) {
          const turn = this.#share.due();
          if (turn) await turn;
          this.#take(event);
        }
        return;
      }
      // A read that completed no event (one event over several reads): the caller reads again.
      if (!events.length) return;
      this.#events = events;
      this.#next = 0;
    }
    const turn = this.#share.due();
    if (turn) await turn;
    const event = this.#events[this.#next++] as SseEvent;
    if (this.#next === this.#events.length) this.#events = [];
    this.#take(event);
    if (hold && hold.length - this.#checkedAt >= this.#window) await this.#check(false);
  }

  /**
   * The upstream ended: what it sent must end with the terminal event. Bytes after the last
   * complete event are an event cut off, never forwarded; a stream without its terminal event is
   * an answer cut short, which an SDK would otherwise read as complete.
   */
  #ended(): void {
    const rest = this.#splitter.flush();
    // Past the terminal event the answer is whole: a cut-off remnant after it is dropped.
    if (rest && this.#terminal.length) return;
    // A terminal event missing only its blank line is whole too.
    if (rest && this.#text.isTerminal(rest) && isWhole(rest)) this.#take(rest);
    else if (rest) throw new GatewayError("upstream_stream_incomplete", "the upstream's stream ended in the middle of an event");
    if (!this.#terminal.length) {
      throw new GatewayError("upstream_stream_incomplete", "the upstream's stream ended without its terminal event");
    }
  }

  #take(event: SseEvent): void {
    // Past the terminal event the answer is whole: what follows it (deltas after `message_stop`)
    // was never checked, and an SDK still reading would add it to the answer, so it is dropped.
    if (this.#terminal.length) return;
    if (this.#text.isTerminal(event)) {
      // Read too: a terminal event may carry what the answer's body reports (the Responses API's usage).
      this.#text.add(event);
      this.#terminal.push(event);
      return;
    }
    if (this.#hold) {
      this.#hold.push(readAlike(event));
      if (this.#hold.heldBytes > MAX_HELD_BYTES) {
        throw new GatewayError(
          "stream_too_large",
          `the upstream's stream held for output guardrails exceeds ${MAX_HELD_BYTES} bytes`,
        );
      }
    } else {
      this.#gather(event);
      this.#ready.push(event.raw);
    }
  }

  /**
   * Gathers a passing event's text, bounded: output guardrails checking after the stream need all
   * of it, so past MAX_HELD_BYTES the stream fails closed; without them only the start is kept.
   */
  #gather(event: SseEvent): void {
    const { output } = this.#options.leaf.node;
    const read = output.sync.length + output.async.length > 0;
    if (this.#gatheredBytes + event.raw.length > (read ? MAX_HELD_BYTES : PASS_THROUGH_GATHER_BYTES)) {
      if (read) {
        throw new GatewayError(
          "stream_too_large",
          `the upstream's stream read by output guardrails exceeds ${MAX_HELD_BYTES} bytes`,
        );
      }
      this.#skippedBytes += event.raw.length;
      return;
    }
    this.#gatheredBytes += event.raw.length;
    this.#text.add(event);
  }

  /** The upstream ended: the last check, on all of the text, and everything held released. */
  async #finish(): Promise<void> {
    this.#final = true;
    const hold = this.#hold;
    if (!this.#options.leaf.node.output.sync.length) return;
    if (this.#text.text() === "") {
      this.#outputSkipped = true;
      if (hold) this.#ready.push(...hold.release("", true));
      return;
    }
    if (hold) await this.#check(true);
    else this.#output = await this.#evaluate(this.#text.body(), false);
  }

  /**
   * Checks the text and releases what passed. A window is checked with its held-back tail, by the
   * checks of `window` scope only, so each check costs the window, not the text before it; the
   * last check runs every check once on the whole text, as buffer mode does.
   */
  async #check(final: boolean): Promise<void> {
    const hold = this.#hold as TextHold;
    this.#checkedAt = hold.length;
    const pending = hold.pendingTexts();
    const output = final
      ? await this.#evaluate(this.#text.body(), false)
      : await this.#evaluate(this.#text.windowBody(pending), true);
    if (!output) {
      // No check judges windows: the text waits for none (the checks of `whole` scope run at the end).
      if (!final) this.#ready.push(...hold.release(pending, false));
      return;
    }
    this.#output = output;
    this.#spend(output, hold);
    if (output.status === 446) {
      const guardrails = output.results.filter((r) => r.deny && !r.verdict).map((r) => r.id);
      this.#stop = { guardrails, released_chars: hold.releasedChars, mode: this.#mode };
      return;
    }
    const checked = output.transformed ? this.#text.textsOf(output.response) : undefined;
    try {
      if (!final) this.#ready.push(...hold.release(checked ? joinedSegments(checked) : pending, false));
      else {
        // A redaction of the whole answer is mapped back onto the held events segment by segment,
        // which needs the segments in the order the events carried them: out of order, it cannot be.
        if (checked !== undefined && !sameSegments(this.#text.textsOf(this.#text.body()), this.#text.texts())) {
          throw new ReleasedTextChanged(
            "a redaction reached texts that arrived out of the answer's order, which cannot be rewritten in place",
          );
        }
        if (checked !== undefined) this.#delivered = output.response as Record<string, unknown>;
        this.#ready.push(...(checked === undefined ? hold.release(pending, true) : hold.releaseWhole(checked)));
      }
    } catch (error) {
      if (!(error instanceof ReleasedTextChanged)) throw error;
      this.#error = error;
      this.#stop = { guardrails: [], released_chars: hold.releasedChars, mode: this.#mode };
    }
  }

  /** The output side on a body carrying the streamed text: all its checks, or those of window scope. */
  #evaluate(body: Record<string, unknown>, window: boolean): Promise<Evaluation | undefined> {
    const { phases, leaf } = this.#options;
    const sync = leaf.node.output.sync;
    return phases.sync("output", window ? phases.windowGuardrails(sync) : sync, leaf.request, body, leaf.phase);
  }

  /** Counts an evaluation's check time against the stream's budget; past it, the stream fails closed. */
  #spend(output: Evaluation, hold: TextHold): void {
    this.#checkTime += checkTime(output);
    const budget = this.#options.checkBudgetMs ?? DEFAULT_STREAM_CHECK_BUDGET_MS;
    if (this.#checkTime <= budget) return;
    throw new GatewayError(
      "stream_check_budget_exceeded",
      `the output guardrails of this stream used more than ${budget} ms of check time (stream_check_budget_ms) after ${hold.length} characters`,
    );
  }

  #stopEvent(reportHooks: boolean): Buffer {
    const stop = this.#stop as StreamStop;
    const hooks = reportHooks && this.#output ? { after_request_hooks: this.#output.results } : undefined;
    const message = stop.guardrails.length
      ? `the streamed answer was stopped by output guardrail ${stop.guardrails.join(", ")} after ${stop.released_chars} characters`
      : `${(this.#error as Error).message} after ${stop.released_chars} characters`;
    const code = stop.guardrails.length ? "hooks_failed" : "stream_redaction_conflict";
    // The SDKs raise this event as an error: like a 446's, its `error` names the denying guardrails.
    const denial =
      stop.guardrails.length && this.#output
        ? denialOf("output", { before_request_hooks: [], after_request_hooks: this.#output.results })
        : undefined;
    return FORMATS[this.#options.format].streamError(
      { status: 446, code, message, type: "hooks_failed", ...(denial && { denial }) },
      hooks,
      this.#lastSent,
    );
  }

  #brokenEvent(): Buffer {
    const error = this.#error;
    // A gateway error says what broke; anything else is not the client's to read.
    const fields =
      error instanceof GatewayError
        ? { status: error.status, code: error.code, message: error.message }
        : { status: 502, code: "stream_broken", message: "the stream broke off before its end" };
    return FORMATS[this.#options.format].streamError(fields, undefined, this.#lastSent);
  }

  async #close(): Promise<void> {
    this.#done = true;
    try {
      await this.#iterator.return?.();
    } catch {
      // The upstream is being abandoned; how its connection ends is not this stream's concern.
    }
  }
}
