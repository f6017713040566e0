/**
 * The OpenAI wire format: chat completions, text completions and embeddings; a bearer credential;
 * errors as `{ error: { message, type, param, code } }`; streams of `data:` chunks ending with
 * `[DONE]`; `prompt_tokens` / `completion_tokens` usage. Groq, Mistral, Together, Fireworks,
 * DeepSeek, OpenRouter and Ollama speak it too.
 *
 * A streamed chat or text completion's texts, as the output side reads them: one text per choice
 * (`n > 1`), each checked with its own held-back tail, so a match split across a choice's deltas
 * is whole in its window however the choices interleave. A choice's text is its
 * content (a string, or an array of text parts as Mistral's reasoning models send it), then its
 * tool calls' arguments (`tool_calls`, and the legacy `function_call`), joined by a newline as
 * core/content.ts joins a non-streamed choice. Gemini and Vertex answers with several candidates
 * arrive here translated to chunks with choice indexes.
 */
import { createHash, randomUUID } from "node:crypto";
import type { HookResults, RequestType } from "../../core/index.js";
import { type BodyPath, isObject, setAtPath } from "../../core/internal.js";
import type { SseEvent } from "./sse.js";
import {
  type AddedText,
  type ErrorFields,
  eventObject,
  type MockAnswer,
  replacedEvent,
  type StreamText,
  type WireFormat,
} from "./format.js";

function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  // What OpenAI's own API answers: a rate limit, and a spent quota (which it sends with a 429).
  if (status === 429) return "rate_limit_error";
  if (status === 402) return "insufficient_quota";
  if (status === 404) return "not_found_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

function isDone(event: SseEvent): boolean {
  return event.data.trim() === "[DONE]";
}

/** Embeddings carry no text: one value serves every stream, as it holds nothing. */
const NO_STREAM_TEXT: StreamText = {
  add: () => [],
  rewrite: (event) => event.raw,
  texts: () => new Map(),
  textsOf: () => new Map(),
  text: () => "",
  body: () => ({}),
  windowBody: () => ({}),
  isTerminal: isDone,
};

/** A small deterministic vector per input, so the mock's embeddings are stable across calls. */
function vector(text: string): number[] {
  const hash = createHash("sha256").update(text).digest();
  return Array.from({ length: 8 }, (_, i) => Number(((hash[i] as number) / 255 - 0.5).toFixed(6)));
}

function dataEvent(value: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
}

/** The chunks of one answer: each a `data:` event with one choice and the answer's id, object, created and model. */
function chunker(id: unknown, object: string, created: unknown, model: unknown): (choice: Record<string, unknown>) => Buffer {
  return (choice) => dataEvent({ id, object, created, model, choices: [choice] });
}

/**
 * A non-streamed chat or text completion as the chunks a stream of it would send: per choice, its
 * content in one chunk, each tool call in one, the legacy function_call in one, then its finish;
 * then the usage, then `[DONE]`.
 */
function* answerAsStream(requestType: RequestType, body: Record<string, unknown>): Generator<Buffer> {
  const { id, created, model } = body;
  const object = requestType === "complete" ? "text_completion" : "chat.completion.chunk";
  const chunk = chunker(id, object, created, model);
  const choices = Array.isArray(body.choices) ? (body.choices as Array<Record<string, unknown>>) : [];
  for (const [position, choice] of choices.entries()) {
    const index = typeof choice?.index === "number" ? choice.index : position;
    const finish = {
      index,
      ...(requestType === "complete" ? { text: "" } : { delta: {} }),
      finish_reason: choice?.finish_reason ?? "stop",
    };
    if (requestType === "complete") {
      yield chunk({ index, text: typeof choice?.text === "string" ? choice.text : "", finish_reason: null });
      yield chunk(finish);
      continue;
    }
    const message = (choice?.message ?? {}) as {
      role?: unknown;
      content?: unknown;
      refusal?: unknown;
      tool_calls?: unknown;
      function_call?: unknown;
    };
    yield chunk({
      index,
      delta: {
        role: message.role ?? "assistant",
        content: message.content ?? null,
        ...(message.refusal != null && { refusal: message.refusal }),
      },
      finish_reason: null,
    });
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<Record<string, unknown>>) : [];
    for (const [k, call] of calls.entries())
      yield chunk({ index, delta: { tool_calls: [{ index: k, ...call }] }, finish_reason: null });
    if (message.function_call) yield chunk({ index, delta: { function_call: message.function_call }, finish_reason: null });
    yield chunk(finish);
  }
  if (body.usage) yield dataEvent({ id, object, created, model, choices: [], usage: body.usage });
  yield Buffer.from("data: [DONE]\n\n");
}

/** A tool call of a streamed chat answer, put together from its deltas. */
interface ToolCall {
  id?: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** One choice of a streamed answer, put together from its deltas. */
interface StreamedChoice {
  parts: string[];
  tools: Map<number, ToolCall>;
  legacy?: { name: string; arguments: string };
  finish?: unknown;
  /** The choice's segments so far: its content, then each tool call's arguments, in the order they came. */
  segments: string[];
  /** Which part of the choice (content, a tool call, the legacy call) the last piece belonged to. */
  current?: string;
  /** Parts the choice's text moved on from: a piece of one of them again comes out of order. */
  left: Set<string>;
}

function emptyChoice(): StreamedChoice {
  return { parts: [], tools: new Map(), segments: [], left: new Set() };
}

/** One piece of text a chunk carries, and where in the chunk it sits (for a rewrite). */
interface Piece {
  choice: number;
  /** Which part of the choice: `c` content, `t<k>` tool call k's arguments, `f` the legacy function_call. */
  part: string;
  text: string;
  path: BodyPath;
}

type Obj = Record<string, unknown>;

function indexOf(choice: Obj, position: number): number {
  return typeof choice.index === "number" ? choice.index : position;
}

/** The text parts of a content array, with their positions. */
function contentParts(content: unknown): Array<{ at: number; text: string }> {
  if (!Array.isArray(content)) return [];
  const parts: Array<{ at: number; text: string }> = [];
  content.forEach((part, at) => {
    if (isObject(part) && part.type === "text" && typeof part.text === "string" && part.text) parts.push({ at, text: part.text });
  });
  return parts;
}

/** The pieces of text a chunk carries, in the order core/content.ts reads a choice: content, tool arguments, function_call. */
function piecesOf(chunk: Obj, requestType: RequestType): Piece[] {
  const pieces: Piece[] = [];
  if (!Array.isArray(chunk.choices)) return pieces;
  chunk.choices.forEach((choice: unknown, position: number) => {
    if (!isObject(choice)) return;
    const index = indexOf(choice, 0);
    const base = ["choices", position];
    if (requestType === "complete") {
      if (typeof choice.text === "string" && choice.text)
        pieces.push({ choice: index, part: "c", text: choice.text, path: [...base, "text"] });
      return;
    }
    const delta = choice.delta;
    if (!isObject(delta)) return;
    if (typeof delta.content === "string" && delta.content)
      pieces.push({ choice: index, part: "c", text: delta.content, path: [...base, "delta", "content"] });
    for (const { at, text } of contentParts(delta.content))
      pieces.push({ choice: index, part: "c", text, path: [...base, "delta", "content", at, "text"] });
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call: unknown, k: number) => {
        if (!isObject(call) || !isObject(call.function)) return;
        const args = call.function.arguments;
        const tool = typeof call.index === "number" ? call.index : 0;
        if (typeof args === "string" && args)
          pieces.push({
            choice: index,
            part: `t${tool}`,
            text: args,
            path: [...base, "delta", "tool_calls", k, "function", "arguments"],
          });
      });
    }
    const legacy = delta.function_call;
    if (isObject(legacy) && typeof legacy.arguments === "string" && legacy.arguments)
      pieces.push({ choice: index, part: "f", text: legacy.arguments, path: [...base, "delta", "function_call", "arguments"] });
  });
  return pieces;
}

/** Chat and text completions: every choice's deltas and every tool call's arguments are text the output side checks. */
class CompletionStreamText implements StreamText {
  readonly #choices = new Map<number, StreamedChoice>();
  constructor(private readonly requestType: RequestType) {}

  #choice(index: number): StreamedChoice {
    let choice = this.#choices.get(index);
    if (!choice) {
      choice = emptyChoice();
      this.#choices.set(index, choice);
    }
    return choice;
  }

  add(event: SseEvent): AddedText[] {
    const chunk = eventObject(event.data);
    if (!chunk || !Array.isArray(chunk.choices)) return [];
    for (const choice of chunk.choices as unknown[]) {
      if (!isObject(choice)) continue;
      const streamed = this.#choice(indexOf(choice, 0));
      if (choice.finish_reason) streamed.finish = choice.finish_reason;
      const delta = isObject(choice.delta) ? choice.delta : undefined;
      if (this.requestType !== "chatComplete" || !delta) continue;
      for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (!isObject(call)) continue;
        const index = typeof call.index === "number" ? call.index : 0;
        const tool = streamed.tools.get(index) ?? { type: "function", function: { name: "", arguments: "" } };
        const fn = isObject(call.function) ? call.function : {};
        if (typeof call.id === "string") tool.id = call.id;
        if (typeof fn.name === "string") tool.function.name += fn.name;
        if (typeof fn.arguments === "string") tool.function.arguments += fn.arguments;
        streamed.tools.set(index, tool);
      }
      const legacy = delta.function_call;
      if (isObject(legacy)) {
        streamed.legacy ??= { name: "", arguments: "" };
        if (typeof legacy.name === "string") streamed.legacy.name += legacy.name;
        if (typeof legacy.arguments === "string") streamed.legacy.arguments += legacy.arguments;
      }
    }
    const added: AddedText[] = [];
    for (const piece of piecesOf(chunk, this.requestType)) {
      const choice = this.#choice(piece.choice);
      if (piece.part === "c") choice.parts.push(piece.text);
      const switched = choice.current !== undefined && choice.current !== piece.part;
      // A part taken up again after another began: the joined text no longer follows the body's order.
      const reentered = switched && choice.left.has(piece.part);
      if (switched) choice.left.add(choice.current as string);
      choice.current = piece.part;
      const separator = switched ? "\n" : "";
      if (switched || !choice.segments.length) choice.segments.push(piece.text);
      else choice.segments[choice.segments.length - 1] += piece.text;
      const opaque = reentered || (piece.part !== "c" && piece.text.includes("\\"));
      added.push({ key: piece.choice, text: separator + piece.text, lead: separator.length, ...(opaque && { opaque: true }) });
    }
    return added;
  }

  rewrite(event: SseEvent, owns: readonly string[]): Buffer {
    let chunk: unknown = eventObject(event.data) as Obj;
    piecesOf(chunk as Obj, this.requestType).forEach((piece, i) => {
      const own = owns[i];
      if (own !== undefined && own !== piece.text) chunk = setAtPath(chunk, piece.path, own);
    });
    return replacedEvent(event, chunk);
  }

  texts(): ReadonlyMap<number, readonly string[]> {
    const texts = new Map<number, string[]>();
    for (const [index, choice] of this.#choices) if (choice.segments.length) texts.set(index, choice.segments);
    return texts;
  }

  text(): string {
    return [...this.texts().entries()]
      .sort(([a], [b]) => a - b)
      .map(([, segments]) => segments.join("\n"))
      .join("\n");
  }

  body(): Obj {
    const entries = [...this.#choices.entries()].sort(([a], [b]) => a - b);
    if (!entries.length) entries.push([0, emptyChoice()]);
    if (this.requestType === "complete") {
      return {
        object: "text_completion",
        choices: entries.map(([index, c]) => ({ index, text: c.parts.join(""), finish_reason: c.finish ?? "stop" })),
      };
    }
    return {
      object: "chat.completion",
      choices: entries.map(([index, c]) => ({
        index,
        message: {
          role: "assistant",
          // A choice that only called tools has no content, as a non-streamed answer says with null.
          content: c.parts.length || !(c.tools.size || c.legacy) ? c.parts.join("") : null,
          ...(c.tools.size && { tool_calls: [...c.tools.entries()].sort(([a], [b]) => a - b).map(([, t]) => t) }),
          ...(c.legacy && { function_call: c.legacy }),
        },
        finish_reason: c.finish ?? (c.tools.size ? "tool_calls" : c.legacy ? "function_call" : "stop"),
      })),
    };
  }

  windowBody(texts: ReadonlyMap<number, string>): Obj {
    const entries = [...texts.entries()];
    return this.requestType === "complete"
      ? { object: "text_completion", choices: entries.map(([index, text]) => ({ index, text, finish_reason: null })) }
      : {
          object: "chat.completion",
          choices: entries.map(([index, text]) => ({
            index,
            message: { role: "assistant", content: text },
            finish_reason: null,
          })),
        };
  }

  textsOf(body: unknown): Map<number, string[]> {
    const texts = new Map<number, string[]>();
    const choices = isObject(body) && Array.isArray(body.choices) ? (body.choices as unknown[]) : [];
    choices.forEach((choice, position) => {
      if (!isObject(choice)) return;
      if (this.requestType === "complete") {
        if (typeof choice.text === "string" && choice.text) texts.set(indexOf(choice, position), [choice.text]);
        return;
      }
      const message = isObject(choice.message) ? choice.message : {};
      const content =
        typeof message.content === "string"
          ? message.content
          : contentParts(message.content)
              .map((p) => p.text)
              .join("");
      const parts = [content];
      for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [])
        if (isObject(call) && isObject(call.function) && typeof call.function.arguments === "string")
          parts.push(call.function.arguments);
      if (isObject(message.function_call) && typeof message.function_call.arguments === "string")
        parts.push(message.function_call.arguments);
      const segments = parts.filter((part) => part !== "");
      if (segments.length) texts.set(indexOf(choice, position), segments);
    });
    return texts;
  }

  isTerminal(event: SseEvent): boolean {
    return isDone(event);
  }
}

/** The OpenAI format. */
export const openai: WireFormat = {
  name: "openai",
  label: "an OpenAI-compatible",
  endpoints: [
    { route: "/v1/chat/completions", upstreamPath: "/chat/completions", requestType: "chatComplete" },
    { route: "/v1/completions", upstreamPath: "/completions", requestType: "complete" },
    { route: "/v1/embeddings", upstreamPath: "/embeddings", requestType: "embed" },
  ],

  credentialHeaders: (secret) => ({ authorization: `Bearer ${secret}` }),
  // The caller's Authorization is forwarded as it came, not re-issued.
  callerSecret: () => undefined,
  forwardedHeaders: [],
  forwardedWithCallerCredential: ["openai-organization", "openai-project"],
  upstreamDefaults: {},
  passedBack: { names: ["x-request-id"], prefixes: ["x-ratelimit-", "openai-"] },

  errorBody: (fields: ErrorFields) => ({
    error: {
      message: fields.message,
      type: fields.type ?? errorType(fields.status),
      param: fields.param ?? null,
      code: fields.code,
      ...fields.denial,
    },
  }),
  hookEvent: (hookResults: Partial<HookResults>) => Buffer.from(`data: ${JSON.stringify({ hook_results: hookResults })}\n\n`),
  // The SDKs raise a data event that carries `error` (an APIError with its message and type).
  streamError: (fields: ErrorFields, hookResults?: Partial<HookResults>) =>
    dataEvent({ ...openai.errorBody(fields), ...(hookResults && { hook_results: hookResults }) }),
  streamText: (requestType) => (requestType === "embed" ? NO_STREAM_TEXT : new CompletionStreamText(requestType)),
  streamOf: answerAsStream,
  usageFields: { input: "prompt_tokens", output: "completion_tokens" },

  mockBody(answer: MockAnswer): Record<string, unknown> {
    const { text, model, created, promptTokens: prompt, completionTokens: completion } = answer;
    switch (answer.requestType) {
      case "complete":
        return {
          id: `cmpl-mock-${randomUUID()}`,
          object: "text_completion",
          created,
          model,
          choices: [{ index: 0, text, logprobs: null, finish_reason: "stop" }],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        };
      case "embed": {
        const inputs = Array.isArray(answer.request.input) ? answer.request.input : [answer.request.input];
        return {
          object: "list",
          data: inputs.map((input, index) => ({ object: "embedding", index, embedding: vector(JSON.stringify(input ?? "")) })),
          model,
          usage: { prompt_tokens: prompt, total_tokens: prompt },
        };
      }
      default:
        return {
          id: `chatcmpl-mock-${randomUUID()}`,
          object: "chat.completion",
          created,
          model,
          choices: [
            { index: 0, message: { role: "assistant", content: text, refusal: null }, logprobs: null, finish_reason: "stop" },
          ],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        };
    }
  },

  *mockStream(answer: MockAnswer, pieces: readonly string[]): Generator<Buffer> {
    const chat = answer.requestType === "chatComplete";
    const id = `${chat ? "chatcmpl" : "cmpl"}-mock-${randomUUID()}`;
    const chunk = chunker(id, chat ? "chat.completion.chunk" : "text_completion", answer.created, answer.model);
    // A chat choice carries its text in a delta, a text completion's choice in `text`.
    const choice = (text: Record<string, unknown>, finish: string | null) =>
      chunk({ index: 0, ...text, logprobs: null, finish_reason: finish });
    if (chat) yield choice({ delta: { role: "assistant", content: "" } }, null);
    for (const piece of pieces) yield choice(chat ? { delta: { content: piece } } : { text: piece }, null);
    yield choice(chat ? { delta: {} } : { text: "" }, "stop");
    yield Buffer.from("data: [DONE]\n\n");
  },
};
