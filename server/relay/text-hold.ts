/**
 * The held-back part of a streamed answer (docs/streaming.md): events wait here until a check of
 * the text they carry passed, and leave in order. After each passing check everything is released
 * except a tail of the text, which a match still growing (a phrase, an e-mail address arriving in
 * pieces) could begin in. A check that transformed the text (a redaction) is honoured: each
 * released event carries its part of the transformed text, re-written in the provider's own chunk
 * format only when its text changed, so chunk boundaries stay where the upstream put them.
 */
import type { AddedText, StreamText } from "../formats/format.js";
import type { SseEvent } from "../formats/sse.js";

/** A check transformed text that had already been released: the stream cannot honour it. */
export class ReleasedTextChanged extends Error {
  readonly code = "stream_redaction_conflict";
  constructor(message = "a redaction reached text that had already been streamed; the stream was stopped") {
    super(message);
  }
}

/** One event waiting, with where its text sits in the joined text. */
interface Waiting {
  event: SseEvent;
  /** The joined text's length once this event was added. */
  end: number;
  added?: AddedText;
}

function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/** Events of one stream held until their text is checked. */
export class TextHold {
  #waiting: Waiting[] = [];
  /**
   * The joined text from `#pendingAt` on: what was taken in and not released. Only this part is
   * kept and checked, so each check costs the window and its tail, never the text before them.
   */
  #pending = "";
  /** Where in the joined text the pending text starts (the released text ends). */
  #pendingAt = 0;
  /** The (checked, possibly transformed) text released so far, built by appending. */
  #released = "";
  /** Bytes of the events waiting. */
  #heldBytes = 0;

  constructor(
    private readonly text: StreamText,
    /** Characters held back after a passing check that was not the last. */
    private readonly tail: number,
  ) {}

  /** Takes an event in. */
  push(event: SseEvent): void {
    const added = this.text.add(event);
    if (added) this.#pending += added.text;
    this.#heldBytes += event.raw.length;
    const end = this.length;
    this.#waiting.push(added ? { event, end, added } : { event, end });
  }

  /** Bytes of the events waiting to be released. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Characters of text taken in. */
  get length(): number {
    return this.#pendingAt + this.#pending.length;
  }

  /** Characters of text released. */
  get releasedChars(): number {
    return this.#released.length;
  }

  /** The text taken in and not released yet: the held-back tail and what arrived since. */
  pending(): string {
    return this.#pending;
  }

  /**
   * Releases what a passing check of the whole text allows, the stream having ended: `checked` is
   * the whole text as the check left it, which must begin with the text already released.
   */
  releaseWhole(checked: string): Buffer[] {
    if (!checked.startsWith(this.#released)) throw new ReleasedTextChanged();
    return this.release(checked.slice(this.#released.length), true);
  }

  /**
   * Releases what a passing check of the pending text allows. `checked` is the pending text as the
   * check left it (the same, or its transformation); `final` releases everything, the stream
   * having ended.
   */
  release(checked: string, final: boolean): Buffer[] {
    const pending = this.#pending;
    const from = this.#pendingAt;
    const length = this.length;
    // Positions before `prefix` are unchanged, and so are the last `suffix` characters.
    const prefix = commonPrefix(pending, checked);
    const suffix = commonSuffix(pending, checked);
    const limit = final ? length : length - this.tail;
    const out: Buffer[] = [];
    let atT = from;
    let atX = 0;
    let taken = 0;
    let bytes = 0;
    for (const waiting of this.#waiting) {
      if (!waiting.added) {
        // An event without text keeps its place: it leaves once the text before it did.
        if (!final && (waiting.end > limit || atT < waiting.end)) break;
        out.push(waiting.event.raw);
        bytes += waiting.event.raw.length;
        taken++;
        continue;
      }
      if (waiting.end > limit) break;
      let endT: number;
      let endX: number;
      if (final && waiting.end === length) {
        endT = waiting.end;
        endX = checked.length;
      } else if (waiting.end - from <= prefix) {
        endT = waiting.end;
        endX = waiting.end - from;
      } else if (length - waiting.end <= suffix && checked.length - (length - waiting.end) >= atX) {
        endT = waiting.end;
        endX = checked.length - (length - waiting.end);
      } else {
        // The event's end lies in changed text: it carries the unchanged part, the change goes with a later event.
        endT = Math.max(atT, Math.min(waiting.end, from + prefix));
        endX = endT - from;
      }
      const piece = checked.slice(atX, endX);
      out.push(piece === waiting.added.text ? waiting.event.raw : this.text.rewrite(waiting.event, own(piece, waiting.added)));
      atT = endT;
      atX = endX;
      bytes += waiting.event.raw.length;
      taken++;
    }
    this.#waiting = taken ? this.#waiting.slice(taken) : this.#waiting;
    this.#heldBytes -= bytes;
    this.#released += checked.slice(0, atX);
    this.#pending = pending.slice(atT - from);
    this.#pendingAt = atT;
    return out;
  }
}

/** The event's own text in a piece of joined text: without the separator it was joined with. */
function own(piece: string, added: AddedText): string {
  const lead = added.text.slice(0, added.lead);
  return lead && piece.startsWith(lead) ? piece.slice(lead.length) : piece;
}
