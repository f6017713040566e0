/**
 * Server-sent events read off a byte stream: complete events are cut at blank lines (LF or CRLF
 * line endings) on bytes, and only then decoded, so an event split across network reads, or a
 * multi-byte character split across chunks, arrives whole. Each event keeps its raw bytes, which
 * are what the gateway forwards. The framing every format's stream is written in, so it lives with
 * the formats, below the upstream client and the pipeline that read streams through it.
 */

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

/** Parses the fields of one event's text. */
export function parseEvent(raw: Buffer): SseEvent {
  const text = raw.toString("utf8");
  let event: string | undefined;
  const data: string[] = [];
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  const parsed: SseEvent = { raw, data: data.join("\n") };
  if (event !== undefined) parsed.event = event;
  return parsed;
}

/** Splits a byte stream into events. */
export class SseSplitter {
  #pending: Buffer = Buffer.alloc(0);
  /** Where the boundary search resumes, so a long event is not rescanned on every chunk. */
  #scanFrom = 0;
  readonly #maxEventBytes: number;

  constructor(maxEventBytes = 16 * 1024 * 1024) {
    this.#maxEventBytes = maxEventBytes;
  }

  /** Adds bytes; returns the events they complete. */
  push(chunk: Buffer): SseEvent[] {
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    const events: SseEvent[] = [];
    let start = 0;
    const buffer = this.#pending;
    for (let i = Math.max(this.#scanFrom, 1); i < buffer.length; i++) {
      if (buffer[i] !== LF) continue;
      // A blank line: this LF follows another line ending (LF, or CRLF) directly.
      let j = i - 1;
      if (buffer[j] === CR) j--;
      if (j >= start && buffer[j] === LF) {
        events.push(parseEvent(buffer.subarray(start, i + 1)));
        start = i + 1;
      }
    }
    this.#pending = start ? buffer.subarray(start) : buffer;
    this.#scanFrom = this.#pending.length;
    if (this.#pending.length > this.#maxEventBytes) {
      throw new Error(`an upstream event exceeds ${this.#maxEventBytes} bytes`);
    }
    return events;
  }

  /** Whatever remains after the stream ended: a last event without its blank line, if any. */
  flush(): SseEvent | undefined {
    const rest = this.#pending;
    this.#pending = Buffer.alloc(0);
    this.#scanFrom = 0;
    if (!rest.toString("utf8").trim()) return undefined;
    return parseEvent(rest);
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
