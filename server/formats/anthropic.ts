/**
 * The Anthropic wire format: messages; the credential in `x-api-key` and an `anthropic-version`
 * header; errors as `{ type: "error", error: { type, message } }`; streams of named events whose
 * text arrives in content blocks and which end with `message_stop`; `input_tokens` /
 * `output_tokens` usage.
 */
import { randomUUID } from "node:crypto";
import type { HookResults } from "../../core/index.js";
import { type SseEvent, SseSplitter } from "./sse.js";
import {
  type AddedText,
  eventObject,
  type ErrorFields,
  replacedEvent,
  type MockAnswer,
  type StreamText,
  type WireFormat,
} from "./format.js";

/** Error types by status. */
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  402: "billing_error",
  404: "not_found_error",
  413: "request_too_large",
  415: "invalid_request_error",
  429: "rate_limit_error",
  502: "api_error",
  503: "overloaded_error",
  504: "timeout_error",
};

/** The API version sent when the client named none. */
const DEFAULT_VERSION = "2023-06-01";

function bearer(authorization: string | undefined): string | undefined {
  const match = authorization?.match(/^Bearer\s+(.+)$/i);
  return match?.[1]?.trim();
}

/**
 * Messages: text blocks by index, from their start and their deltas, and tool_use blocks with
 * their input's streamed JSON. Both are text the output side checks, so a tool call's input waits
 * in the hold like any text; a block's first text is joined to the text before it by a newline.
 */
class MessageStreamText implements StreamText {
  readonly #blocks = new Map<number, string[]>();
  readonly #tools = new Map<number, { id: unknown; name: unknown; json: string }>();
  /** Whether any block began: the next one is joined to it by a newline. */
  #begun = false;

  #lead(): number {
    const lead = this.#begun ? 1 : 0;
    this.#begun = true;
    return lead;
  }

  add(event: SseEvent): AddedText | undefined {
    const payload = eventObject(event.data);
    if (!payload) return undefined;
    const index = typeof payload.index === "number" ? payload.index : 0;
    if (payload.type === "content_block_start") {
      const block = payload.content_block as { type?: string; text?: unknown; id?: unknown; name?: unknown } | undefined;
      if (block?.type === "tool_use") {
        this.#tools.set(index, { id: block.id, name: block.name, json: "" });
        const lead = this.#lead();
        return lead ? { text: "\n", lead } : undefined;
      }
      if (block?.type !== "text") return undefined;
      // Blocks arrive one after another; a new one is joined to the text before it by a newline.
      const lead = this.#lead();
      const text = typeof block.text === "string" ? block.text : "";
      this.#blocks.set(index, text ? [text] : []);
      return { text: `${lead ? "\n" : ""}${text}`, lead };
    }
    if (payload.type === "content_block_delta") {
      const delta = payload.delta as { type?: string; text?: unknown; partial_json?: unknown } | undefined;
      const tool = this.#tools.get(index);
      if (tool && delta?.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json) {
        tool.json += delta.partial_json;
        return { text: delta.partial_json, lead: 0 };
      }
      if (delta?.type === "text_delta" && typeof delta.text === "string" && delta.text) {
        const parts = this.#blocks.get(index) ?? [];
        parts.push(delta.text);
        this.#blocks.set(index, parts);
        return { text: delta.text, lead: 0 };
      }
    }
    return undefined;
  }

  rewrite(event: SseEvent, own: string): Buffer {
    const payload = eventObject(event.data) as Record<string, unknown>;
    if (payload.type === "content_block_start") {
      if ((payload.content_block as { type?: string } | undefined)?.type !== "text") {
        throw new Error("a redaction reached the start of a tool_use block, which carries no text to rewrite");
      }
      return replacedEvent(event, { ...payload, content_block: { ...(payload.content_block as object), text: own } });
    }
    const delta = payload.delta as { type?: string };
    const field = delta.type === "input_json_delta" ? "partial_json" : "text";
    return replacedEvent(event, { ...payload, delta: { ...delta, [field]: own } });
  }

  text(): string {
    // Blocks are joined as core/content.ts joins them when it reads a non-streamed message.
    const texts: Array<[number, string]> = [...this.#blocks.entries()].map(([index, parts]) => [index, parts.join("")]);
    for (const [index, tool] of this.#tools) texts.push([index, tool.json]);
    return texts
      .sort(([a], [b]) => a - b)
      .map(([, text]) => text)
      .join("\n");
  }

  body(): Record<string, unknown> {
    const blocks: Array<[number, Record<string, unknown>]> = [...this.#blocks.entries()].map(([index, parts]) => [
      index,
      { type: "text", text: parts.join("") },
    ]);
    for (const [index, tool] of this.#tools)
      blocks.push([index, { type: "tool_use", id: tool.id, name: tool.name, input: toolInput(tool.json) }]);
    return { type: "message", role: "assistant", content: blocks.sort(([a], [b]) => a - b).map(([, block]) => block) };
  }

  windowBody(text: string): Record<string, unknown> {
    return { type: "message", role: "assistant", content: [{ type: "text", text }] };
  }

  isTerminal(event: SseEvent): boolean {
    return event.event === "message_stop";
  }
}

/**
 * A tool call's input from its streamed JSON; a missing one reads as `{}`. A broken one stays the
 * string it is, so the output side still reads every character the client was sent.
 */
function toolInput(json: string): unknown {
  try {
    return json ? JSON.parse(json) : {};
  } catch {
    return json;
  }
}

function namedEvent(name: string, value: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(value)}\n\n`);
}

/**
 * `out` with `hook` right after its `message_start`: the SDK's `messages.stream()` hands its
 * listeners nothing before `message_start`, so the opening `hook_results` goes there.
 */
function afterMessageStart(out: Buffer, hook: Buffer): Buffer | undefined {
  let offset = 0;
  for (const event of new SseSplitter().push(out)) {
    offset += event.raw.length;
    if (event.event === "message_start" || eventObject(event.data)?.type === "message_start")
      return Buffer.concat([out.subarray(0, offset), hook, out.subarray(offset)]);
  }
  return undefined;
}

/** The Anthropic format. */
export const anthropic: WireFormat = {
  name: "anthropic",
  label: "an Anthropic-compatible",
  endpoints: [{ route: "/v1/messages", upstreamPath: "/messages", requestType: "messages" }],

  credentialHeaders: (secret) => ({ "x-api-key": secret }),
  // The Anthropic SDK sends its key as x-api-key; a bearer token is taken as the key too.
  callerSecret: (caller) => caller.apiKey ?? bearer(caller.authorization),
  forwardedHeaders: ["anthropic-version", "anthropic-beta"],
  forwardedWithCallerCredential: [],
  upstreamDefaults: { "anthropic-version": DEFAULT_VERSION },
  passesBack: (name) => name === "request-id" || name.startsWith("anthropic-ratelimit-"),

  errorBody: (fields: ErrorFields) => ({
    type: "error",
    error: { type: fields.type ?? ERROR_TYPES[fields.status] ?? "api_error", message: fields.message, ...fields.denial },
  }),
  hookEvent: (hookResults: Partial<HookResults>) =>
    Buffer.from(`event: hook_results\ndata: ${JSON.stringify({ hook_results: hookResults })}\n\n`),
  placeOpeningHook: afterMessageStart,
  // The SDKs raise an `error` event (an APIError whose type is the body's error type).
  streamError: (fields: ErrorFields, hookResults?: Partial<HookResults>) =>
    namedEvent("error", { ...anthropic.errorBody(fields), ...(hookResults && { hook_results: hookResults }) }),
  streamText: () => new MessageStreamText(),
  usageFields: { input: "input_tokens", output: "output_tokens" },

  mockBody: (answer: MockAnswer) => ({
    id: `msg_mock_${randomUUID().replaceAll("-", "")}`,
    type: "message",
    role: "assistant",
    model: answer.model,
    content: [{ type: "text", text: answer.text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: answer.promptTokens, output_tokens: answer.completionTokens },
  }),

  *mockStream(answer: MockAnswer, pieces: readonly string[]): Generator<Buffer> {
    const id = `msg_mock_${randomUUID().replaceAll("-", "")}`;
    const usage = { input_tokens: answer.promptTokens, output_tokens: 0 };
    yield namedEvent("message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: answer.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    });
    yield namedEvent("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    for (const piece of pieces) {
      yield namedEvent("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: piece },
      });
    }
    yield namedEvent("content_block_stop", { type: "content_block_stop", index: 0 });
    yield namedEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: answer.completionTokens },
    });
    yield namedEvent("message_stop", { type: "message_stop" });
  },
};
