/**
 * OpenAI chat chunks as the Responses API's typed events, written as each chunk arrives: the
 * response is created and in progress first; text opens a `message` item with one `output_text`
 * part and streams as `response.output_text.delta`; each tool call opens a `function_call` item and
 * streams its arguments. Items are closed (their `.done` events carrying the whole text) when the
 * next kind of output begins or the stream ends, and the stream ends with `response.completed`, or
 * `response.incomplete` when the provider stopped at the token limit. Every event carries its
 * `sequence_number`. A provider's failure is not caught here: the relay ends the stream with the
 * format's error event.
 */
import type { Json } from "../kind.js";
import { isJson, jsonItems, namedEvent, nowSeconds } from "../translate.js";
import { endOf, functionCallItem, messageItem, responseShell, responsesId, responsesUsage } from "./responses-answer.js";

interface OpenMessage {
  id: string;
  index: number;
  text: string;
}

interface OpenCall {
  id: string;
  index: number;
  callId: string;
  name: string;
  args: string;
}

/** Writes the events of one streamed response. */
class ResponseWriter {
  readonly #out: Buffer[] = [];
  readonly #body: Json;
  readonly #id = responsesId("resp");
  #sequence = 0;
  #shell: Json | undefined;
  #message: OpenMessage | undefined;
  /** Tool calls by their chat index, open until the stream ends: a later chunk may add to any. */
  readonly #calls = new Map<number, OpenCall>();
  readonly #items: Json[] = [];
  #finish: unknown;
  #usage: unknown;

  constructor(body: Json) {
    this.#body = body;
  }

  take(): Buffer[] {
    return this.#out.splice(0);
  }

  #emit(type: string, fields: Json): void {
    this.#out.push(namedEvent(type, { type, sequence_number: this.#sequence++, ...fields }));
  }

  #start(chunk: Json): void {
    if (this.#shell) return;
    const created = typeof chunk.created === "number" ? chunk.created : nowSeconds();
    this.#shell = responseShell(this.#id, this.#body, chunk.model, created);
    this.#emit("response.created", { response: this.#shell });
    this.#emit("response.in_progress", { response: this.#shell });
  }

  #closeMessage(): void {
    const message = this.#message;
    if (!message) return;
    this.#message = undefined;
    const where = { item_id: message.id, output_index: message.index, content_index: 0 };
    this.#emit("response.output_text.done", { ...where, text: message.text, logprobs: [] });
    const item = messageItem(message.id, message.text);
    this.#emit("response.content_part.done", { ...where, part: (item.content as Json[])[0] });
    this.#emit("response.output_item.done", { output_index: message.index, item });
    this.#items[message.index] = item;
  }

  #text(delta: string): void {
    if (!this.#message) {
      this.#message = { id: responsesId("msg"), index: this.#items.length, text: "" };
      this.#items.push({});
      const { id, index } = this.#message;
      const item = { type: "message", id, status: "in_progress", role: "assistant", content: [] };
      this.#emit("response.output_item.added", { output_index: index, item });
      const part = { type: "output_text", text: "", annotations: [], logprobs: [] };
      this.#emit("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part });
    }
    this.#message.text += delta;
    const { id, index } = this.#message;
    this.#emit("response.output_text.delta", { item_id: id, output_index: index, content_index: 0, delta, logprobs: [] });
  }

  #toolCall(chunkCall: Json): void {
    const key = typeof chunkCall.index === "number" ? chunkCall.index : 0;
    const fn = isJson(chunkCall.function) ? chunkCall.function : {};
    let call = this.#calls.get(key);
    if (!call) {
      this.#closeMessage();
      const callId = typeof chunkCall.id === "string" ? chunkCall.id : responsesId("fc");
      call = { id: responsesId("fc"), index: this.#items.length, callId, name: String(fn.name ?? ""), args: "" };
      this.#items.push({});
      this.#calls.set(key, call);
      const item = { type: "function_call", id: call.id, call_id: callId, name: call.name, arguments: "", status: "in_progress" };
      this.#emit("response.output_item.added", { output_index: call.index, item });
    }
    if (typeof fn.arguments === "string" && fn.arguments) {
      call.args += fn.arguments;
      this.#emit("response.function_call_arguments.delta", { item_id: call.id, output_index: call.index, delta: fn.arguments });
    }
  }

  add(chunk: Json): void {
    this.#start(chunk);
    if (chunk.usage !== undefined && chunk.usage !== null) this.#usage = chunk.usage;
    // The chat form asks one choice of the provider.
    const choice = jsonItems(chunk.choices)[0];
    if (!choice) return;
    const delta = isJson(choice.delta) ? choice.delta : {};
    const text = typeof delta.content === "string" ? delta.content : typeof delta.refusal === "string" ? delta.refusal : "";
    if (text) this.#text(text);
    for (const call of jsonItems(delta.tool_calls)) this.#toolCall(call);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  end(): void {
    this.#start({});
    this.#closeMessage();
    for (const call of [...this.#calls.values()].sort((a, b) => a.index - b.index)) {
      const where = { item_id: call.id, output_index: call.index };
      this.#emit("response.function_call_arguments.done", { ...where, name: call.name, arguments: call.args });
      const item = functionCallItem(call.id, call.callId, call.name, call.args);
      this.#emit("response.output_item.done", { output_index: call.index, item });
      this.#items[call.index] = item;
    }
    const end = endOf(this.#finish);
    const response = { ...this.#shell, ...end, output: this.#items, usage: responsesUsage(this.#usage) };
    this.#emit(end.status === "completed" ? "response.completed" : "response.incomplete", { response });
  }
}

/** The Responses events of a chat stream. */
export async function* responseEventsOfChunks(chunks: AsyncIterable<Json>, body: Json): AsyncGenerator<Buffer> {
  const writer = new ResponseWriter(body);
  for await (const chunk of chunks) {
    writer.add(chunk);
    yield* writer.take();
  }
  writer.end();
  yield* writer.take();
}
