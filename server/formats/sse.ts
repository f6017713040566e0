/**
 * Server-sent events read off a byte stream: complete events are cut at blank lines on bytes, and
 * only then decoded, so an event split across network reads, or a multi-byte character split
 * across chunks, arrives whole. Each event keeps its raw bytes, which are what the gateway
 * forwards. Lines end as the WHATWG spec and the official OpenAI and Anthropic SDKs read them: LF,
 * CRLF or a lone CR, so an event also ends at "\r\r" or "\n\r"; a byte order mark before a line's
 * field is skipped as the SDKs skip it. Text the client's SDK would read is never framed otherwise
 * here. The framing every format's stream is written in, so it lives with the formats, below the
 * upstream client and the pipeline that read streams through it. The bytes not yet cut wait in a
 * `ByteQueue` (below), which the AWS event stream's decoder (Bedrock) cuts its messages from too.
 */
import { StringDecoder } from "node:string_decoder";

/** One complete event. */
export interface SseEvent {
  /** The bytes as received, blank-line terminator included. */
  raw: Buffer;
  /** The `event:` field, or undefined. */
  event?: string;
  /** The `data:` lines joined with newlines; empty when there were none. */
  data: string;
}

const LF = 0x0a;
const CR = 0x0d;

/** Parses the fields of one event's bytes. */
export function parseEvent(raw: Buffer): SseEvent {
  const fields = new EventFields();
  fields.write(raw.toString("utf8"));
  return { raw, ...fields.end() };
}

/**
 * Where events end in a byte stream, read by read: the line-ending state carries over from one
 * read to the next, so a blank line split across reads ("\n" | "\n", "\r\n" | "\r\n") is found
 * without looking at earlier bytes again, and each byte is looked at once. Holds no bytes: the
 * splitter cuts events with it, and the upstream client counts events with it.
 */
export class SseFraming {
  /** The bytes read so far end a line (so another line ending is a blank line). */
  #lineEnded = false;
  /** The last byte read was a CR whose line ending may still be a CRLF's; `#crEndsEvent` if it ends a blank line. */
  #pendingCr = false;
  #crEndsEvent = false;
  /** Positions of the next LF and CR in the chunk being read, so each is searched for once per chunk. */
  #nextLf = -1;
  #nextCr = -1;

  /** The offsets in `chunk` where events end (0: an event ended with the last read). */
  ends(chunk: Buffer): number[] {
    const ends: number[] = [];
    const cut = (end: number) => {
      ends.push(end);
      this.#lineEnded = false;
    };
    this.#nextLf = chunk.indexOf(LF);
    this.#nextCr = chunk.indexOf(CR);
    let i = 0;
    if (this.#pendingCr && chunk.length) {
      // The CR that ended the last read: a CRLF when this read starts with LF, else a line ending alone.
      this.#pendingCr = false;
      if (chunk[0] === LF) {
        i = 1;
        if (this.#crEndsEvent) cut(1);
        else this.#lineEnded = true;
      } else if (this.#crEndsEvent) cut(0);
      else this.#lineEnded = true;
    }
    while (i < chunk.length) {
      const lf = this.#next(chunk, i, LF);
      const cr = this.#next(chunk, i, CR);
      const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (at === -1) {
        this.#lineEnded = false;
        break;
      }
      // Any other byte before the line ending starts a line that is not blank.
      const blank = at === i && this.#lineEnded;
      if (chunk[at] === LF) {
        if (blank) cut(at + 1);
        else this.#lineEnded = true;
        i = at + 1;
        continue;
      }
      if (at + 1 === chunk.length) {
        this.#pendingCr = true;
        this.#crEndsEvent = blank;
        this.#lineEnded = false;
        break;
      }
      const end = chunk[at + 1] === LF ? at + 2 : at + 1;
      if (blank) cut(end);
      else this.#lineEnded = true;
      i = end;
    }
    return ends;
  }

  /** The stream ended: the next bytes, if any, start afresh. */
  reset(): void {
    this.#lineEnded = false;
    this.#pendingCr = false;
  }

  /** The position of the next `byte` at or after `from`, searched for again only once passed. */
  #next(chunk: Buffer, from: number, byte: number): number {
    if (byte === LF) {
      if (this.#nextLf !== -1 && this.#nextLf < from) this.#nextLf = chunk.indexOf(LF, from);
      return this.#nextLf;
    }
    if (this.#nextCr !== -1 && this.#nextCr < from) this.#nextCr = chunk.indexOf(CR, from);
    return this.#nextCr;
  }
}

/**
 * Splits a byte stream into events. Pending bytes stay in the chunks they came in and an event is
 * joined once, when complete, so each byte is copied at most once, whatever the reads; its text is
 * decoded and its fields read as the bytes arrive (EventFields), so completing an event costs
 * nothing more however long it is.
 */
export class SseSplitter {
  readonly #queue = new ByteQueue();
  readonly #framing = new SseFraming();
  readonly #decoder = new StringDecoder("utf8");
  readonly #fields = new EventFields();
  readonly #maxEventBytes: number;

  constructor(maxEventBytes = 16 * 1024 * 1024) {
    this.#maxEventBytes = maxEventBytes;
  }

  /** Bytes received and bytes copied to join events, for tests that hold the work linear. */
  get work(): Readonly<DecoderWork> {
    return this.#queue.work;
  }

  /** Adds bytes; returns the events they complete. */
  push(chunk: Buffer): SseEvent[] {
    const events: SseEvent[] = [];
    const queue = this.#queue;
    let start = 0;
    for (const end of this.#framing.ends(chunk)) {
      if (end > start) this.#read(chunk.subarray(start, end));
      start = end;
      // An event ends after a line ending, never inside a character: nothing is left to decode.
      this.#fields.write(this.#decoder.end());
      events.push({ raw: queue.drain(), ...this.#fields.end() });
    }
    if (start < chunk.length) this.#read(chunk.subarray(start));
    if (queue.length > this.#maxEventBytes) {
      throw new Error(`an upstream event exceeds ${this.#maxEventBytes} bytes`);
    }
    return events;
  }

  /** Bytes of the event under way: kept, and their text read as it comes. */
  #read(bytes: Buffer): void {
    this.#queue.push(bytes);
    this.#fields.write(this.#decoder.write(bytes));
  }

  /** Whatever remains after the stream ended: a last event without its blank line, if any. */
  flush(): SseEvent | undefined {
    this.#framing.reset();
    this.#fields.write(this.#decoder.end());
    const fields = this.#fields.end();
    if (!this.#queue.length) return undefined;
    const rest = this.#queue.drain();
    if (!rest.toString("utf8").trim()) return undefined;
    return { raw: rest, ...fields };
  }
}

/**
 * The events of a byte stream, each as soon as its blank line arrives, the last one without its
 * blank line included: for translators reading a provider's stream chunk by chunk.
 */
export async function* sseEvents(source: AsyncIterable<Buffer>, maxEventBytes?: number): AsyncGenerator<SseEvent> {
  const splitter = new SseSplitter(maxEventBytes);
  for await (const chunk of source) yield* splitter.push(chunk);
  const last = splitter.flush();
  if (last) yield last;
}

// The fields of server-sent events read from their text as it arrives, piece by piece: each piece
// costs its own length, so a long event's text is never decoded or split again when it completes
// (decoding and splitting a 16 MB event at once held the event loop for a tenth of a second and
// more). Lines end at LF, CRLF or a lone CR, and a byte order mark before a field is skipped, as
// the OpenAI and Anthropic SDKs read them.

/** The fields of one event. */
export interface EventFieldValues {
  /** The `event:` field, or undefined. */
  event?: string;
  /** The `data:` lines joined with newlines; empty when there were none. */
  data: string;
}

/** Reads one event's fields from the pieces of its text, then starts afresh for the next. */
export class EventFields {
  #event: string | undefined;
  #data: string | undefined;
  /** The current line's text so far (the pieces are joined by V8 without copying until read). */
  #line = "";
  /** The last piece ended with a CR: an LF starting the next one belongs to it. */
  #skipLf = false;

  /** Reads a piece of the event's text. */
  write(text: string): void {
    let i = 0;
    if (this.#skipLf && text.length) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === 0x0a) i = 1;
    }
    let lf = text.indexOf("\n", i);
    let cr = text.indexOf("\r", i);
    while (i < text.length) {
      if (lf !== -1 && lf < i) lf = text.indexOf("\n", i);
      if (cr !== -1 && cr < i) cr = text.indexOf("\r", i);
      const at = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (at === -1) {
        this.#line += i ? text.slice(i) : text;
        return;
      }
      this.#take(this.#line + text.slice(i, at));
      this.#line = "";
      if (at === cr) {
        if (at + 1 === text.length) this.#skipLf = true;
        i = text.charCodeAt(at + 1) === 0x0a ? at + 2 : at + 1;
      } else i = at + 1;
    }
  }

  /** The event's fields (a last line without its ending included); the next write starts a new event. */
  end(): EventFieldValues {
    if (this.#line) this.#take(this.#line);
    const values: EventFieldValues = { data: this.#data ?? "" };
    if (this.#event !== undefined) values.event = this.#event;
    this.#event = undefined;
    this.#data = undefined;
    this.#line = "";
    this.#skipLf = false;
    return values;
  }

  #take(line: string): void {
    // Both SDKs drop a byte order mark at the start of any line, so a field behind one is read.
    if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    if (line === "" || line.charCodeAt(0) === 0x3a) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== "event" && field !== "data") return;
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    if (field === "event") this.#event = value;
    else this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
  }
}

// The bytes of a stream not yet cut into messages, kept as the chunks they arrived in: a message
// is joined once, when it is complete, so a long message dripped in small reads costs each of its
// bytes one copy, not one per read (joining on every read is quadratic). The stream decoders (SSE,
// AWS event stream) share it, and count the bytes they copy so tests can assert that work is
// linear in the bytes received.

/** Work a decoder did, in bytes: what it received and what it copied to join messages. */
export interface DecoderWork {
  received: number;
  copied: number;
}

/** Pending bytes of a stream, in the chunks they came in. */
export class ByteQueue {
  #parts: Buffer[] = [];
  #length = 0;
  readonly work: DecoderWork = { received: 0, copied: 0 };

  /** Bytes waiting. */
  get length(): number {
    return this.#length;
  }

  /** Queues a chunk (kept as is, never copied here). */
  push(chunk: Buffer): void {
    this.work.received += chunk.length;
    if (!chunk.length) return;
    this.#parts.push(chunk);
    this.#length += chunk.length;
  }

  /** Removes and returns the first `count` bytes, joined; a copy only when they span chunks. */
  take(count: number): Buffer {
    if (count > this.#length) throw new RangeError(`${count} bytes asked of ${this.#length}`);
    this.#length -= count;
    const first = this.#parts[0];
    if (first && first.length >= count) {
      if (first.length === count) this.#parts.shift();
      else this.#parts[0] = first.subarray(count);
      return first.subarray(0, count);
    }
    const out = Buffer.allocUnsafe(count);
    let filled = 0;
    let used = 0;
    while (filled < count) {
      const part = this.#parts[used] as Buffer;
      const want = count - filled;
      if (part.length <= want) {
        part.copy(out, filled);
        filled += part.length;
        used++;
      } else {
        part.copy(out, filled, 0, want);
        this.#parts[used] = part.subarray(want);
        filled += want;
      }
    }
    this.#parts.splice(0, used);
    this.work.copied += count;
    return out;
  }

  /** The unsigned big-endian 32-bit integer at the front, without removing it; undefined when fewer than 4 bytes wait. */
  peekUInt32BE(): number | undefined {
    if (this.#length < 4) return undefined;
    const first = this.#parts[0] as Buffer;
    if (first.length >= 4) return first.readUInt32BE(0);
    let value = 0;
    let read = 0;
    for (const part of this.#parts) {
      for (let i = 0; i < part.length && read < 4; i++, read++) value = value * 256 + (part[i] as number);
      if (read === 4) break;
    }
    return value;
  }

  /** Removes and returns everything waiting, joined. */
  drain(): Buffer {
    return this.take(this.#length);
  }
}
