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

/** One piece of text of a waiting event: which text it went to and where it ends there. */
interface Part {
  added: AddedText;
  /** The length of its text (by key) once this piece was added. */
  end: number;
}

/** One event waiting, with the pieces of text it carries. */
interface Waiting {
  event: SseEvent;
  parts: Part[];
}

/** One text of the stream (a choice's): what of it was released, and what waits. */
interface Held {
  /** The text from `pendingAt` on: what was taken in and not released. */
  pending: string;
  /** Where in the text the pending part starts (the released part ends). */
  pendingAt: number;
  /** The (checked, possibly transformed) text released so far, built by appending. */
  released: string;
}

/** Where a release stands in one text. */
interface Cursor {
  held: Held;
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
 * Events of one stream held until their text is checked. Each text (a choice's) is held on its
 * own: its pending part is what a window check reads, and after a passing check it is released
 * but for its own tail. Events leave in the order they came, so an event waits for every event
 * before it, of whichever choice.
 */
export class TextHold {
  #waiting: Waiting[] = [];
  readonly #held = new Map<number, Held>();
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

  #get(key: number): Held {
    let held = this.#held.get(key);
    if (!held) {
      held = { pending: "", pendingAt: 0, released: "" };
      this.#held.set(key, held);
    }
    return held;
  }

  /** Takes an event in. */
  push(event: SseEvent): void {
    const parts: Part[] = [];
    for (const added of this.text.add(event)) {
      const held = this.#get(added.key);
      held.pending += added.text;
      this.#length += added.text.length;
      if (added.opaque) this.#opaque = true;
      parts.push({ added, end: held.pendingAt + held.pending.length });
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

  /** Whether text came that only the check of the whole answer can judge. */
  get opaque(): boolean {
    return this.#opaque;
  }

  /** The text taken in and not released yet, of the first text (one choice's streams have one). */
  pending(): string {
    return this.#held.values().next().value?.pending ?? "";
  }

  /** Each text's pending part, by key, those with any. */
  pendingTexts(): Map<number, string> {
    const texts = new Map<number, string>();
    for (const [key, held] of this.#held) if (held.pending) texts.set(key, held.pending);
    return texts;
  }

  /** Each text's released part, by key, as the client received it. */
  releasedTexts(): Map<number, string> {
    const texts = new Map<number, string>();
    for (const [key, held] of this.#held) if (held.released) texts.set(key, held.released);
    return texts;
  }

  /** A string given for the stream's only text, keyed. */
  #keyed(checked: string | ReadonlyMap<number, string>): ReadonlyMap<number, string> {
    if (typeof checked !== "string") return checked;
    const key = this.#held.keys().next().value;
    return key === undefined ? new Map() : new Map([[key, checked]]);
  }

  /**
   * Releases what a passing check of the whole text allows, the stream having ended: `checked` is
   * each whole text as the check left it, which must begin with the text already released.
   */
  releaseWhole(checked: string | ReadonlyMap<number, string>): Buffer[] {
    const rest = new Map<number, string>();
    for (const [key, text] of this.#keyed(checked)) {
      const released = this.#get(key).released;
      if (!text.startsWith(released)) throw new ReleasedTextChanged();
      rest.set(key, text.slice(released.length));
    }
    return this.release(rest, true);
  }

  /**
   * Releases what a passing check of the pending texts allows. `checked` is each pending text as
   * the check left it (the same, or its transformation; a text left out is unchanged); `final`
   * releases everything, the stream having ended.
   */
  release(checked: string | ReadonlyMap<number, string>, final: boolean): Buffer[] {
    if (!final && this.#opaque) return [];
    const keyed = this.#keyed(checked);
    const cursors = new Map<number, Cursor>();
    for (const [key, held] of this.#held) {
      const text = keyed.get(key) ?? held.pending;
      const length = held.pendingAt + held.pending.length;
      cursors.set(key, {
        held,
        checked: text,
        // Positions before `prefix` are unchanged, and so are the last `suffix` characters.
        prefix: commonPrefix(held.pending, text),
        suffix: commonSuffix(held.pending, text),
        length,
        limit: final ? length : length - this.tail,
        at: held.pendingAt,
        atX: 0,
      });
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
        out.push(waiting.event.raw);
      } else {
        if (waiting.parts.some((part) => part.end > (cursors.get(part.added.key) as Cursor).limit)) break;
        const owns = waiting.parts.map((part) => {
          const cursor = cursors.get(part.added.key) as Cursor;
          const [piece, short] = advance(cursor, part, final);
          if (short) deferred = true;
          return piece;
        });
        const same = owns.every((piece, i) => piece === (waiting.parts[i] as Part).added.text);
        out.push(same ? waiting.event.raw : this.#rewrite(waiting, owns));
      }
      bytes += waiting.event.raw.length;
      taken++;
    }
    this.#waiting = taken ? this.#waiting.slice(taken) : this.#waiting;
    this.#heldBytes -= bytes;
    for (const cursor of cursors.values()) {
      const { held } = cursor;
      const released = cursor.checked.slice(0, cursor.atX);
      held.released += released;
      this.#releasedChars += released.length;
      held.pending = held.pending.slice(cursor.at - held.pendingAt);
      held.pendingAt = cursor.at;
    }
    return out;
  }

  #rewrite(waiting: Waiting, pieces: string[]): Buffer {
    const owns = pieces.map((piece, i) => own(piece, (waiting.parts[i] as Part).added));
    try {
      return this.text.rewrite(waiting.event, owns);
    } catch (error) {
      throw new ReleasedTextChanged(`a redaction reached text this stream cannot rewrite (${(error as Error).message})`);
    }
  }
}

/**
 * Moves a text's cursor over one piece: the piece's part of the checked text, and whether it
 * carries less than its whole text (the change goes with a later event).
 */
function advance(cursor: Cursor, part: Part, final: boolean): [string, boolean] {
  const from = cursor.held.pendingAt;
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

/** The event's own text in a piece of joined text: without the separator it was joined with. */
function own(piece: string, added: AddedText): string {
  const lead = added.text.slice(0, added.lead);
  return lead && piece.startsWith(lead) ? piece.slice(lead.length) : piece;
}
