/**
 * The text of a streamed answer, gathered event by event, and the response body it amounts to, so
 * output guardrails evaluate what was streamed (never an empty body, a known flaw elsewhere).
 */
import type { RequestType } from "../../core/index.js";
import type { SseEvent } from "../upstream/sse.js";

/** Gathers streamed text for one request type. */
export interface StreamText {
  add(event: SseEvent): void;
  /** The text so far. */
  text(): string;
  /** A non-streamed response body carrying the text, for the output phase. */
  body(): Record<string, unknown>;
  /** Whether this event ends the stream (`[DONE]`, `message_stop`): held back until the output phase ran. */
  isTerminal(event: SseEvent): boolean;
}

function parse(data: string): Record<string, unknown> | undefined {
  if (!data || data === "[DONE]") return undefined;
  try {
    const value = JSON.parse(data) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function firstChoice(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Array.isArray(chunk.choices)) return undefined;
  const choice = chunk.choices.find((c) => c && typeof c === "object" && ((c as { index?: number }).index ?? 0) === 0);
  return choice as Record<string, unknown> | undefined;
}

/** OpenAI chat and text completions: the first choice's deltas. */
class OpenAiStreamText implements StreamText {
  #parts: string[] = [];
  constructor(private readonly requestType: RequestType) {}

  add(event: SseEvent): void {
    const chunk = parse(event.data);
    if (!chunk) return;
    const choice = firstChoice(chunk);
    if (!choice) return;
    const piece = this.requestType === "complete" ? choice.text : (choice.delta as { content?: unknown } | undefined)?.content;
    if (typeof piece === "string" && piece) this.#parts.push(piece);
  }

  text(): string {
    return this.#parts.join("");
  }

  body(): Record<string, unknown> {
    const text = this.text();
    return this.requestType === "complete"
      ? { object: "text_completion", choices: [{ index: 0, text, finish_reason: "stop" }] }
      : {
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        };
  }

  isTerminal(event: SseEvent): boolean {
    return event.data.trim() === "[DONE]";
  }
}

/** Anthropic messages: text blocks by index, from their start and their deltas. */
class AnthropicStreamText implements StreamText {
  readonly #blocks = new Map<number, string[]>();

  add(event: SseEvent): void {
    const payload = parse(event.data);
    if (!payload) return;
    const index = typeof payload.index === "number" ? payload.index : 0;
    if (payload.type === "content_block_start") {
      const block = payload.content_block as { type?: string; text?: unknown } | undefined;
      if (block?.type === "text") this.#blocks.set(index, typeof block.text === "string" ? [block.text] : []);
    } else if (payload.type === "content_block_delta") {
      const delta = payload.delta as { type?: string; text?: unknown } | undefined;
      if (delta?.type === "text_delta" && typeof delta.text === "string") {
        const parts = this.#blocks.get(index) ?? [];
        parts.push(delta.text);
        this.#blocks.set(index, parts);
      }
    }
  }

  #texts(): string[] {
    return [...this.#blocks.entries()].sort(([a], [b]) => a - b).map(([, parts]) => parts.join(""));
  }

  text(): string {
    // Blocks are joined as core/content.ts joins them when it reads a non-streamed message.
    return this.#texts().join("\n");
  }

  body(): Record<string, unknown> {
    return { type: "message", role: "assistant", content: this.#texts().map((text) => ({ type: "text", text })) };
  }

  isTerminal(event: SseEvent): boolean {
    return event.event === "message_stop";
  }
}

/** Embeddings carry no text. */
class NoStreamText implements StreamText {
  add(): void {}
  text(): string {
    return "";
  }
  body(): Record<string, unknown> {
    return {};
  }
  isTerminal(event: SseEvent): boolean {
    return event.data.trim() === "[DONE]";
  }
}

/** The accumulator for a request type. */
export function streamText(requestType: RequestType): StreamText {
  switch (requestType) {
    case "chatComplete":
    case "complete":
      return new OpenAiStreamText(requestType);
    case "messages":
      return new AnthropicStreamText();
    case "embed":
      return new NoStreamText();
  }
}
