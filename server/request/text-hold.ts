/**
 * The held-back part of a streamed answer (docs/streaming.md): events wait here until a check of
 * the text they carry passed, and leave in order. After each passing check everything is released
 * except a tail of the text, which a match still growing (a phrase, an e-mail address arriving in
 * pieces) could begin in. A check that transformed the text (a redaction) is honoured: each
 * released event carries its part of the transformed text, re-written in the provider's own chunk
 * format only when its text changed, so chunk boundaries stay where the upstream put them.
 */
import { splitOverSlots } from "../../core/internal.js";
import type { StreamText } from "../formats/format.js";
import type { SseEvent } from "../formats/sse.js";

/** A check transformed text that had already been released: the stream cannot honour it. */
export class ReleasedTextChanged extends Error {
  readonly code = "stream_redaction_conflict";
  constructor(message = "a redaction reached text that had already been streamed; the stream was stopped") {
    super(message);
  }
}

/**
 * One text of the answer in one place: a choice's content, one tool call's arguments, one content
 * block. A redaction is written back into the events of the segment it was found in, never moved
 * into another: the client rebuilds each segment on its own.
 */
interface Segment {
  /** The segment's text from `pendingAt` on: what was taken in and not released. */
  pending: string;
  /** Where in the segment's text the pending part starts (the released part ends). */
  pendingAt: number;
  /** The (checked, possibly transformed) text released so far, built by appending. */
  released: string;
}

/** One piece of text of a waiting event: the segment it went to and where it ends there. */
interface Part {
  segment: Segment;
  /** The event's own text (without the separator joining it to the text before). */
  own: string;
  /** The length of the segment's text once this piece was added. */
  end: number;
}

/** One event waiting, with the pieces of text it carries. */
interface Waiting {
  event: SseEvent;
  parts: Part[];
}

/** Where a release stands in one segment. */
interface Cursor {
  segment: Segment;
  checked: string;
  prefix: number;
  suffix: number;
  length: number;
  limit: number;
  /** Position reached in the taken-in text (`at`) and in the checked text (`atX`). */
  at: number;
  atX: number;
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

/**
 * Events of one stream held until their text is checked. Each choice's text is held on its own:
 * its pending part (its segments' pending parts, joined by a newline) is what a window check
 * reads, and after a passing check it is released but for its own tail. Events leave in the order
 * they came, so an event waits for every event before it, of whichever choice.
 */
export class TextHold {
  #waiting: Waiting[] = [];
  /** Each choice's segments, in the order they began. */
  readonly #choices = new Map<number, Segment[]>();
  /** Characters taken in and released, over all texts. */
  #length = 0;
  #releasedChars = 0;
  /** Bytes of the events waiting. */
  #heldBytes = 0;
  /** Text came that windows cannot judge: nothing leaves before the check of the whole answer. */
  #opaque = false;

  constructor(
    private readonly text: StreamText,
    /** Characters held back after a passing check that was not the last. */
    private readonly tail: number,
  ) {}

  /** Takes an event in. */
  push(event: SseEvent): void {
    const parts: Part[] = [];
    for (const added of this.text.add(event)) {
      let segments = this.#choices.get(added.key);
      if (!segments) {
        segments = [];
        this.#choices.set(added.key, segments);
      }
      // A separator begins a new segment (another tool call, another block).
      if (added.lead > 0 || !segments.length) segments.push({ pending: "", pendingAt: 0, released: "" });
      const segment = segments[segments.length - 1] as Segment;
      const own = added.text.slice(added.lead);
      segment.pending += own;
      this.#length += added.text.length;
      if (added.opaque) this.#opaque = true;
      parts.push({ segment, own, end: segment.pendingAt + segment.pending.length });
    }
    this.#heldBytes += event.raw.length;
    this.#waiting.push({ event, parts });
  }

  /** Bytes of the events waiting to be released. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** Characters of text taken in, over all texts. */
  get length(): number {
    return this.#length;
  }

  /** Characters of text released, over all texts. */
  get releasedChars(): number {
    return this.#releasedChars;
  }

  /** The segments of a choice with text pending. */
  #pendingSegments(key: number): Segment[] {
    return (this.#choices.get(key) ?? []).filter((segment) => segment.pending !== "");
  }

  /** The text taken in and not released yet, of the first choice (a stream of one choice has one). */
  pending(): string {
    const key = this.#choices.keys().next().value;
    return key === undefined
      ? ""
      : this.#pendingSegments(key)
          .map((segment) => segment.pending)
          .join("\n");
  }

  /** Each choice's pending text (its segments' pending parts joined by a newline), those with any. */
  pendingTexts(): Map<number, string> {
    const texts = new Map<number, string>();
    for (const key of this.#choices.keys()) {
      const text = this.#pendingSegments(key)
        .map((segment) => segment.pending)
        .join("\n");
      if (text) texts.set(key, text);
    }
    return texts;
  }

  /** Each choice's released text, as the client received it. */
  releasedTexts(): Map<number, string> {
    const texts = new Map<number, string>();
    for (const [key, segments] of this.#choices) {
      const text = segments
        .filter((segment) => segment.released !== "")
        .map((segment) => segment.released)
        .join("\n");
      if (text) texts.set(key, text);
    }
    return texts;
  }

  /** A string given for the stream's only choice, keyed. */
  #keyed(checked: string | ReadonlyMap<number, string>): ReadonlyMap<number, string> {
    if (typeof checked !== "string") return checked;
    const key = this.#choices.keys().next().value;
    return key === undefined ? new Map() : new Map([[key, checked]]);
  }

  /**
   * Releases what a passing check of the whole answer allows, the stream having ended: `checked`
   * is each choice's segments as the check left them, each of which must begin with the text
   * already released of it (a string: the one choice's text, its segments joined by newlines).
   */
  releaseWhole(checked: string | ReadonlyMap<number, readonly string[]>): Buffer[] {
    const rest = new Map<Segment, string>();
    for (const [key, segments] of this.#choices) {
      const texts =
        typeof checked !== "string" ? (checked.get(key) ?? []) : segments.length === 1 ? [checked] : checked.split("\n");
      if (texts.length !== segments.length) {
        throw new ReleasedTextChanged(
          "a redaction changed how the answer's texts are divided, which cannot be rewritten in place",
        );
      }
      segments.forEach((segment, i) => {
        const text = texts[i] as string;
        if (!text.startsWith(segment.released)) throw new ReleasedTextChanged();
        rest.set(segment, text.slice(segment.released.length));
      });
    }
    return this.#release(rest, true);
  }

  /**
   * Releases what a passing check of the pending texts allows. `checked` is each choice's pending
   * text as the check left it (the same, or its transformation; a choice left out is unchanged),
   * mapped back onto its segments as core/content.ts maps a transformed text onto its parts;
   * `final` releases everything, the stream having ended.
   */
  release(checked: string | ReadonlyMap<number, string>, final: boolean): Buffer[] {
    if (!final && this.#opaque) return [];
    const keyed = this.#keyed(checked);
    const perSegment = new Map<Segment, string>();
    for (const key of this.#choices.keys()) {
      const segments = this.#pendingSegments(key);
      const joined = segments.map((segment) => segment.pending).join("\n");
      const text = keyed.get(key) ?? joined;
      const split =
        text === joined
          ? segments.map((segment) => segment.pending)
          : segments.length === 1
            ? [text]
            : splitOverSlots(
                segments.map((segment) => ({ path: [], text: segment.pending })),
                joined,
                text,
              );
      segments.forEach((segment, i) => perSegment.set(segment, split[i] as string));
    }
    return this.#release(perSegment, final);
  }

  #release(checked: ReadonlyMap<Segment, string>, final: boolean): Buffer[] {
    const cursors = new Map<Segment, Cursor>();
    for (const segments of this.#choices.values()) {
      // The choice's last `tail` characters are held back, over as many segments as they span.
      let held = final ? 0 : this.tail;
      for (let i = segments.length - 1; i >= 0; i--) {
        const segment = segments[i] as Segment;
        const text = checked.get(segment) ?? segment.pending;
        const length = segment.pendingAt + segment.pending.length;
        cursors.set(segment, {
          segment,
          checked: text,
          // Positions before `prefix` are unchanged, and so are the last `suffix` characters.
          prefix: commonPrefix(segment.pending, text),
          suffix: commonSuffix(segment.pending, text),
          length,
          limit: length - held,
          at: segment.pendingAt,
          atX: 0,
        });
        held = Math.max(0, held - length - 1);
      }
    }
    const out: Buffer[] = [];
    let taken = 0;
    let bytes = 0;
    // A piece left carrying only part of its text: what follows waits for the rest.
    let deferred = false;
    for (const waiting of this.#waiting) {
      if (!waiting.parts.length) {
        // An event without text keeps its place: it leaves once the text before it did.
        if (!final && deferred) break;
        out.push(this.text.echo?.(waiting.event) ?? waiting.event.raw);
      } else {
        if (waiting.parts.some((part) => part.end > (cursors.get(part.segment) as Cursor).limit)) break;
        const owns = waiting.parts.map((part) => {
          const [piece, short] = advance(cursors.get(part.segment) as Cursor, part, final);
          if (short) deferred = true;
          return piece;
        });
        const same = owns.every((own, i) => own === (waiting.parts[i] as Part).own);
        out.push(same ? (this.text.echo?.(waiting.event) ?? waiting.event.raw) : this.#rewrite(waiting, owns));
      }
      bytes += waiting.event.raw.length;
      taken++;
    }
    this.#waiting = taken ? this.#waiting.slice(taken) : this.#waiting;
    this.#heldBytes -= bytes;
    for (const cursor of cursors.values()) {
      const { segment } = cursor;
      const released = cursor.checked.slice(0, cursor.atX);
      segment.released += released;
      this.#releasedChars += released.length;
      segment.pending = segment.pending.slice(cursor.at - segment.pendingAt);
      segment.pendingAt = cursor.at;
    }
    return out;
  }

  #rewrite(waiting: Waiting, owns: string[]): Buffer {
    try {
      return this.text.rewrite(waiting.event, owns);
    } catch (error) {
      throw new ReleasedTextChanged(`a redaction reached text this stream cannot rewrite (${(error as Error).message})`);
    }
  }
}

/**
 * Moves a segment's cursor over one piece: the piece's part of the checked text, and whether it
 * carries less than its whole text (the change goes with a later event of the segment).
 */
function advance(cursor: Cursor, part: Part, final: boolean): [string, boolean] {
  const from = cursor.segment.pendingAt;
  let endT: number;
  let endX: number;
  let short = false;
  if (final && part.end === cursor.length) {
    endT = part.end;
    endX = cursor.checked.length;
  } else if (part.end - from <= cursor.prefix) {
    endT = part.end;
    endX = part.end - from;
  } else if (cursor.length - part.end <= cursor.suffix && cursor.checked.length - (cursor.length - part.end) >= cursor.atX) {
    endT = part.end;
    endX = cursor.checked.length - (cursor.length - part.end);
  } else {
    // The piece's end lies in changed text: it carries the unchanged part, the change goes with a later event.
    endT = Math.max(cursor.at, Math.min(part.end, from + cursor.prefix));
    endX = endT - from;
    short = endT < part.end;
  }
  const piece = cursor.checked.slice(cursor.atX, endX);
  cursor.at = endT;
  cursor.atX = endX;
  return [piece, short];
}

/** Whether two sets of segments by key are the same (a key without segments counts as absent). */
export function sameSegments(a: ReadonlyMap<number, readonly string[]>, b: ReadonlyMap<number, readonly string[]>): boolean {
  const keys = new Set([...a.keys(), ...b.keys()]);
  for (const key of keys) {
    const x = a.get(key) ?? [];
    const y = b.get(key) ?? [];
    if (x.length !== y.length || x.some((segment, i) => segment !== y[i])) return false;
  }
  return true;
}

/** Each key's segments joined, as a window's text is. */
export function joinedSegments(texts: ReadonlyMap<number, readonly string[]>): Map<number, string> {
  return new Map([...texts].map(([key, segments]) => [key, segments.join("\n")]));
}
