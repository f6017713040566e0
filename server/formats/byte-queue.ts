/**
 * The bytes of a stream not yet cut into messages, kept as the chunks they arrived in: a message
 * is joined once, when it is complete, so a long message dripped in small reads costs each of its
 * bytes one copy, not one per read (joining on every read is quadratic). The stream decoders (SSE,
 * AWS event stream) share it, and count the bytes they copy so tests can assert that work is
 * linear in the bytes received.
 */

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
