/**
 * The texts of a streamed Responses API answer, as the output side reads a JSON one
 * (core/content.ts): every `output_text` part, every `function_call`'s arguments, an `mcp_call`'s
 * arguments and output, one segment each in the order they began, all one text (key 0) joined by
 * newlines. Text arrives in `response.output_text.delta`, `response.function_call_arguments.delta`
 * and `response.mcp_call_arguments.delta` events; what an item gives whole (arguments in
 * `output_item.added`, an `mcp_call`'s output in `output_item.done`) is text of that event.
 *
 * The done events and the closing `response.completed` repeat the texts whole, and the SDKs build
 * the answer they hand over from them: `echo` re-writes them from the texts as they were sent (a
 * redaction reaches them too), and a text they carry that no event streamed, which no check read,
 * is left out.
 */
import type { SseEvent } from "./sse.js";
import { type AddedText, eventObject, replacedEvent, type StreamText } from "./format.js";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

/** Where a segment sits: an output item, and in it a content part (`c<k>`), its `arguments` or its `output`. */
type Place = string;

function place(output: unknown, field: string): Place {
  return `${typeof output === "number" ? output : 0}:${field}`;
}

interface Segment {
  at: Place;
  text: string;
  /** The text as released to the client so far (rewritten pieces as rewritten). */
  sent: string;
}

/** One piece of text an event carried. */
interface Piece {
  segment: Segment;
  own: string;
}

/** What an output item is, for the body the checks read. */
interface ItemFacts {
  type: string;
  fields: Obj;
}

/** Events that end a Responses stream. */
const TERMINAL: ReadonlySet<unknown> = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** Gathers one streamed Responses answer. */
export class ResponsesStreamText implements StreamText {
  readonly #segments: Segment[] = [];
  readonly #byPlace = new Map<Place, Segment>();
  readonly #items = new Map<number, ItemFacts>();
  readonly #pieces = new WeakMap<SseEvent, Piece[]>();
  #usage: unknown;
  #response: Obj = {};

  /** A segment, begun with `text` when new: its piece carries the separator from the text before. */
  #piece(event: SseEvent, at: Place, text: string, opaque: boolean, into: AddedText[]): void {
    let segment = this.#byPlace.get(at);
    let lead = 0;
    if (!segment) {
      lead = this.#segments.length ? 1 : 0;
      segment = { at, text: "", sent: "" };
      this.#segments.push(segment);
      this.#byPlace.set(at, segment);
    } else if (!text) return;
    segment.text += text;
    const pieces = this.#pieces.get(event) ?? [];
    pieces.push({ segment, own: text });
    this.#pieces.set(event, pieces);
    into.push({ key: 0, text: `${lead ? "\n" : ""}${text}`, lead, ...(opaque && { opaque: true }) });
  }

  add(event: SseEvent): AddedText[] {
    const payload = eventObject(event.data);
    if (!payload) return [];
    const added: AddedText[] = [];
    const index = payload.output_index;
    switch (payload.type) {
      case "response.content_part.added": {
        const part = payload.part as Obj | undefined;
        if (part?.type === "output_text")
          this.#piece(event, place(index, `c${String(payload.content_index)}`), str(part.text), false, added);
        break;
      }
      case "response.output_text.delta":
        this.#piece(event, place(index, `c${String(payload.content_index)}`), str(payload.delta), false, added);
        break;
      case "response.function_call_arguments.delta":
      case "response.mcp_call_arguments.delta": {
        // The client reads the arguments' JSON decoded: a window with an escape is not what it reads.
        const delta = str(payload.delta);
        this.#piece(event, place(index, "arguments"), delta, delta.includes("\\"), added);
        break;
      }
      case "response.output_item.added":
      case "response.output_item.done":
        this.#item(event, typeof index === "number" ? index : 0, payload.item, added, payload.type.endsWith("done"));
        break;
      default:
        if (TERMINAL.has(payload.type) && isObj(payload.response)) {
          this.#response = payload.response;
          this.#usage = payload.response.usage;
        }
    }
    return added;
  }

  /** An item's facts, and the text it gives whole. */
  #item(event: SseEvent, index: number, item: unknown, added: AddedText[], done: boolean): void {
    if (!isObj(item) || typeof item.type !== "string") return;
    const known = this.#items.get(index);
    this.#items.set(index, { type: item.type, fields: { ...known?.fields, ...item } });
    if (item.type === "function_call" || item.type === "mcp_call") {
      const args = str(item.arguments);
      // Arguments given whole are read as a whole: a window of their JSON is not what the client reads.
      if (!this.#byPlace.has(place(index, "arguments")) && (args || !done))
        this.#piece(event, place(index, "arguments"), args, args !== "", added);
      if (item.type === "mcp_call" && done && typeof item.output === "string" && item.output)
        this.#piece(event, place(index, "output"), item.output, false, added);
    } else if (item.type === "message" && done && Array.isArray(item.content)) {
      // Parts no delta streamed carry their text here.
      item.content.forEach((part, k) => {
        const at = place(index, `c${k}`);
        if (isObj(part) && part.type === "output_text" && !this.#byPlace.has(at) && str(part.text))
          this.#piece(event, at, str(part.text), false, added);
      });
    }
  }

  /** Notes the pieces of an event as sent: their own texts, or those given. */
  #sent(event: SseEvent, owns?: readonly string[]): void {
    for (const [i, piece] of (this.#pieces.get(event) ?? []).entries()) {
      piece.segment.sent += owns?.[i] ?? piece.own;
    }
  }

  rewrite(event: SseEvent, owns: readonly string[]): Buffer {
    this.#sent(event, owns);
    const payload = eventObject(event.data) as Obj;
    const pieces = this.#pieces.get(event) ?? [];
    const own = owns[0] ?? "";
    switch (payload.type) {
      case "response.output_text.delta":
      case "response.function_call_arguments.delta":
      case "response.mcp_call_arguments.delta":
        return replacedEvent(event, { ...payload, delta: own });
      case "response.content_part.added":
        return replacedEvent(event, { ...payload, part: { ...(payload.part as Obj), text: own } });
      default:
        if (!pieces.length) return event.raw;
        return replacedEvent(event, this.#echoed(payload));
    }
  }

  /**
   * The event re-written to repeat the texts as they were sent, when it repeats any otherwise
   * (a done event, `response.completed`); undefined when it goes as it came.
   */
  echo(event: SseEvent): Buffer | undefined {
    this.#sent(event);
    const payload = eventObject(event.data);
    if (!payload || typeof payload.type !== "string" || !repeats(payload.type)) return undefined;
    const echoed = this.#echoed(payload);
    return JSON.stringify(echoed) === JSON.stringify(payload) ? undefined : replacedEvent(event, echoed);
  }

  /** The sent text at a place; a text no event streamed is left out. */
  #sentAt(at: Place): string {
    return this.#byPlace.get(at)?.sent ?? "";
  }

  #echoed(payload: Obj): Obj {
    const index = payload.output_index;
    const part = place(index, `c${String(payload.content_index)}`);
    switch (payload.type) {
      case "response.output_text.done":
        return { ...payload, text: this.#sentAt(part) };
      case "response.content_part.done":
        return isObj(payload.part) && payload.part.type === "output_text"
          ? { ...payload, part: { ...payload.part, text: this.#sentAt(part) } }
          : payload;
      case "response.function_call_arguments.done":
      case "response.mcp_call_arguments.done":
        return { ...payload, arguments: this.#sentAt(place(index, "arguments")) };
      case "response.output_item.added":
      case "response.output_item.done":
        return { ...payload, item: this.#echoItem(payload.item, typeof index === "number" ? index : 0) };
      default: {
        const response = payload.response;
        if (!isObj(response) || !Array.isArray(response.output)) return payload;
        const output = response.output.map((item, i) => this.#echoItem(item, i));
        return { ...payload, response: { ...response, output } };
      }
    }
  }

  #echoItem(item: unknown, index: number): unknown {
    if (!isObj(item)) return item;
    if (item.type === "message" && Array.isArray(item.content)) {
      const content = item.content.map((part, k) =>
        isObj(part) && part.type === "output_text" ? { ...part, text: this.#sentAt(place(index, `c${k}`)) } : part,
      );
      return { ...item, content };
    }
    if (item.type !== "function_call" && item.type !== "mcp_call") return item;
    const out: Obj = { ...item };
    if (typeof item.arguments === "string") out.arguments = this.#sentAt(place(index, "arguments"));
    if (item.type === "mcp_call" && typeof item.output === "string") out.output = this.#sentAt(place(index, "output"));
    return out;
  }

  texts(): ReadonlyMap<number, readonly string[]> {
    return this.#segments.length ? new Map([[0, this.#segments.map((segment) => segment.text)]]) : new Map();
  }

  text(): string {
    return this.#segments.map((segment) => segment.text).join("\n");
  }

  body(): Record<string, unknown> {
    const output: Obj[] = [];
    const built = new Map<number, Obj>();
    for (const segment of this.#segments) {
      const [at, field] = segment.at.split(":") as [string, string];
      const index = Number(at);
      let item = built.get(index);
      if (!item) {
        const facts = this.#items.get(index);
        item = field.startsWith("c")
          ? { ...facts?.fields, type: "message", role: "assistant", content: [] }
          : { ...facts?.fields, type: facts?.type === "mcp_call" ? "mcp_call" : "function_call", arguments: "" };
        built.set(index, item);
        output.push(item);
      }
      if (field.startsWith("c")) (item.content as Obj[]).push({ type: "output_text", text: segment.text });
      else item[field] = segment.text;
    }
    return { ...this.#response, object: "response", output, ...(this.#usage !== undefined && { usage: this.#usage }) };
  }

  windowBody(texts: ReadonlyMap<number, string>): Record<string, unknown> {
    const content = [{ type: "output_text", text: texts.get(0) ?? "" }];
    return { object: "response", output: [{ type: "message", role: "assistant", content }] };
  }

  textsOf(body: unknown): Map<number, string[]> {
    const output = (body as { output?: unknown } | undefined)?.output;
    if (!Array.isArray(output)) return new Map();
    const texts: string[] = [];
    for (const item of output) {
      if (!isObj(item)) continue;
      if (item.type === "message" && Array.isArray(item.content)) {
        for (const part of item.content) if (isObj(part) && part.type === "output_text") texts.push(str(part.text));
      } else if (item.type === "function_call" || item.type === "mcp_call") {
        texts.push(str(item.arguments));
        if (item.type === "mcp_call" && typeof item.output === "string" && item.output) texts.push(item.output);
      }
    }
    return texts.length ? new Map([[0, texts]]) : new Map();
  }

  isTerminal(event: SseEvent): boolean {
    const payload = eventObject(event.data);
    return TERMINAL.has(payload?.type);
  }
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Whether an event type repeats texts streamed before it. */
function repeats(type: string): boolean {
  return type.endsWith(".done") || TERMINAL.has(type);
}
