/**
 * Where messages end in an AWS event stream (Amazon Bedrock's ConverseStream), read by read: each
 * message starts with its total length (4 bytes, big-endian), so counting needs no more than the
 * length prelude of the message under way. Holds no bytes: the upstream client counts messages
 * with it; Bedrock's decoder cuts them.
 */

/** Counts the messages an event stream completes, read by read. */
export class EventStreamFraming {
  /** Bytes of the current message still to come, once its prelude was read. */
  #remaining = 0;
  /** The prelude's bytes read so far, and its value. */
  #preludeBytes = 0;
  #length = 0;

  /** How many messages end in `chunk`. */
  ends(chunk: Buffer): number {
    let ended = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.#preludeBytes < 4) {
        this.#length = this.#length * 256 + (chunk[i] as number);
        this.#preludeBytes++;
        i++;
        // A length below the prelude's own 4 bytes is a broken stream, which the decoder reports; here it ends at once.
        if (this.#preludeBytes === 4) this.#remaining = Math.max(this.#length - 4, 0);
        else continue;
      }
      const take = Math.min(this.#remaining, chunk.length - i);
      this.#remaining -= take;
      i += take;
      if (this.#remaining === 0) {
        ended++;
        this.#preludeBytes = 0;
        this.#length = 0;
      }
    }
    return ended;
  }
}
