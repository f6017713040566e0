/**
 * OpenAI chat chunks as an Anthropic message stream, chunk by chunk: `message_start` with the
 * first chunk; a text block for content and a tool_use block per tool call, each opened when its
 * first delta comes and closed when another begins; `message_delta` with the stop reason and the
 * usage (which an OpenAI stream reports last), then `message_stop`. Blocks are numbered in the
 * order they open, as Anthropic numbers them.
 */
import type { Json } from "../kind.js";
import { isJson, jsonItems, namedEvent } from "../translate.js";
import { anthropicUsage, stopReasonOf } from "./anthropic-answer.js";

type Block = { kind: "text" } | { kind: "tool"; tool: number };

class MessageWriter {
  readonly #out: Buffer[] = [];
  #started = false;
  /** The block open now, and its index. */
  #open: { block: Block; index: number } | undefined;
  #next = 0;
  /** Anthropic block index by OpenAI tool-call index. */
  readonly #tools = new Map<number, number>();
  #stopReason: string | null = null;
  #usage: unknown;

  constructor(private readonly model: unknown) {}

  take(): Buffer[] {
    return this.#out.splice(0);
  }

  #emit(name: string, value: Json): void {
    this.#out.push(namedEvent(name, { type: name, ...value }));
  }

  #start(chunk: Json): void {
    if (this.#started) return;
    this.#started = true;
    this.#emit("message_start", {
      message: {
        id: chunk.id,
        type: "message",
        role: "assistant",
        model: chunk.model ?? this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  #close(): void {
    if (!this.#open) return;
    this.#emit("content_block_stop", { index: this.#open.index });
    this.#open = undefined;
  }

  #text(text: string): void {
    if (this.#open?.block.kind !== "text") {
      this.#close();
      this.#open = { block: { kind: "text" }, index: this.#next++ };
      this.#emit("content_block_start", { index: this.#open.index, content_block: { type: "text", text: "" } });
    }
    this.#emit("content_block_delta", { index: this.#open.index, delta: { type: "text_delta", text } });
  }

  #toolCall(call: Json): void {
    const tool = typeof call.index === "number" ? call.index : 0;
    const fn = isJson(call.function) ? call.function : {};
    let index = this.#tools.get(tool);
    if (index === undefined) {
      this.#close();
      index = this.#next++;
      this.#tools.set(tool, index);
      this.#open = { block: { kind: "tool", tool }, index };
      const block = { type: "tool_use", id: call.id, name: fn.name, input: {} };
      this.#emit("content_block_start", { index, content_block: block });
    }
    // Deltas of a call already closed still name its block: the SDKs gather them by index.
    if (typeof fn.arguments === "string" && fn.arguments) {
      this.#emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: fn.arguments } });
    }
  }

  add(chunk: Json): void {
    this.#start(chunk);
    if (chunk.usage !== undefined && chunk.usage !== null) this.#usage = chunk.usage;
    // The chat form asks one choice of the provider.
    const choice = jsonItems(chunk.choices)[0];
    if (!choice) return;
    const delta = isJson(choice.delta) ? choice.delta : {};
    if (typeof delta.content === "string" && delta.content) this.#text(delta.content);
    for (const call of jsonItems(delta.tool_calls)) this.#toolCall(call);
    if (choice.finish_reason) this.#stopReason = stopReasonOf(choice.finish_reason);
  }

  end(): void {
    this.#start({});
    this.#close();
    this.#emit("message_delta", {
      delta: { stop_reason: this.#stopReason ?? "end_turn", stop_sequence: null },
      usage: anthropicUsage(this.#usage),
    });
    this.#emit("message_stop", {});
  }
}

/** The Anthropic events of a chat stream. */
export async function* messageEventsOfChunks(chunks: AsyncIterable<Json>, body: Json): AsyncGenerator<Buffer> {
  const writer = new MessageWriter(body.model);
  for await (const chunk of chunks) {
    writer.add(chunk);
    yield* writer.take();
  }
  writer.end();
  yield* writer.take();
}
