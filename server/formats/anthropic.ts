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
 * A message is one text (key 0). Input given whole in a tool_use block's start, which the SDKs
 * keep when no delta follows, is text too; it cannot be judged by windows (the client reads the
 * object, not its JSON), so it holds the stream for the check of the whole answer, as escapes in
 * streamed input do.
 */
class MessageStreamText implements StreamText {
  readonly #blocks = new Map<number, string[]>();
  readonly #tools = new Map<number, { id: unknown; name: unknown; json: string }>();
  /** Whether any block began: the next one is joined to it by a newline. */
  #begun = false;
  /** The message's segments: each block's text (a tool_use block's input JSON), in the order the blocks began. */
  readonly #segments: string[] = [];

  #lead(): number {
    const lead = this.#begun ? 1 : 0;
    this.#begun = true;
    return lead;
  }

  /** A block's start (always a piece: it begins a segment, even empty) or a delta's text. */
  #added(text: string, lead: number, opaque = false, start = false): AddedText[] {
    if (!text && !start) return [];
    const own = text.slice(lead);
    if (start) this.#segments.push(own);
    else if (!this.#segments.length) this.#segments.push(own);
    else this.#segments[this.#segments.length - 1] += own;
    return [{ key: 0, text, lead, ...(opaque && { opaque: true }) }];
  }

  add(event: SseEvent): AddedText[] {
    const payload = eventObject(event.data);
    if (!payload) return [];
    const index = typeof payload.index === "number" ? payload.index : 0;
    if (payload.type === "content_block_start") {
      const block = payload.content_block as
        { type?: string; text?: unknown; id?: unknown; name?: unknown; input?: unknown } | undefined;
      if (block?.type === "tool_use") {
        const given =
          block.input && typeof block.input === "object" && Object.keys(block.input).length ? JSON.stringify(block.input) : "";
        this.#tools.set(index, { id: block.id, name: block.name, json: given });
        const lead = this.#lead();
        return this.#added(`${lead ? "\n" : ""}${given}`, lead, given !== "", true);
      }
      if (block?.type !== "text") return [];
      // Blocks arrive one after another; a new one is joined to the text before it by a newline.
      const lead = this.#lead();
      const text = typeof block.text === "string" ? block.text : "";
      this.#blocks.set(index, text ? [text] : []);
      return this.#added(`${lead ? "\n" : ""}${text}`, lead, false, true);
    }
    if (payload.type === "content_block_delta") {
      const delta = payload.delta as { type?: string; text?: unknown; partial_json?: unknown } | undefined;
      const tool = this.#tools.get(index);
      if (tool && delta?.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json) {
        tool.json += delta.partial_json;
        // Escapes are decoded by the client: the raw JSON of a window is not what it reads.
        return this.#added(delta.partial_json, 0, delta.partial_json.includes("\\"));
      }
      if (delta?.type === "text_delta" && typeof delta.text === "string" && delta.text) {
        const parts = this.#blocks.get(index) ?? [];
        parts.push(delta.text);
        this.#blocks.set(index, parts);
        return this.#added(delta.text, 0);
      }
    }
    return [];
  }

  rewrite(event: SseEvent, owns: readonly string[]): Buffer {
    const own = owns[0] ?? "";
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

  texts(): ReadonlyMap<number, readonly string[]> {
    return this.#segments.length ? new Map([[0, this.#segments]]) : new Map();
  }

  text(): string {
    return this.#segments.join("\n");
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

  windowBody(texts: ReadonlyMap<number, string>): Record<string, unknown> {
    return { type: "message", role: "assistant", content: [{ type: "text", text: texts.get(0) ?? "" }] };
  }

  textsOf(body: unknown): Map<number, string[]> {
    const content = (body as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return new Map();
    const texts = content.map((block: { type?: string; text?: unknown; input?: unknown }) => {
      if (block?.type === "text") return typeof block.text === "string" ? block.text : "";
      if (block?.type !== "tool_use") return "";
      const input = block.input;
      if (typeof input === "string") return input;
      return input && typeof input === "object" && Object.keys(input).length ? JSON.stringify(input) : "";
    });
    return texts.length ? new Map([[0, texts]]) : new Map();
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
  passedBack: { names: ["request-id"], prefixes: ["anthropic-ratelimit-"] },

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
