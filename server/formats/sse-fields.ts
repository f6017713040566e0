/**
 * The fields of server-sent events read from their text as it arrives, piece by piece: each piece
 * costs its own length, so a long event's text is never decoded or split again when it completes
 * (decoding and splitting a 16 MB event at once held the event loop for a tenth of a second and
 * more). Lines end at LF, CRLF or a lone CR, and a byte order mark before a field is skipped, as
 * the OpenAI and Anthropic SDKs read them.
 */

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
