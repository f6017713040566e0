/**
 * The OpenAI wire format: chat completions, text completions and embeddings; a bearer credential;
 * errors as `{ error: { message, type, param, code } }`; streams of `data:` chunks ending with
 * `[DONE]`; `prompt_tokens` / `completion_tokens` usage. Groq, Mistral, Together, Fireworks,
 * DeepSeek, OpenRouter and Ollama speak it too.
 */
import { createHash, randomUUID } from "node:crypto";
import type { HookResults, RequestType } from "../../core/index.js";
import type { SseEvent } from "./sse.js";
import {
  type AddedText,
  eventObject,
  type ErrorFields,
  replacedEvent,
  type MockAnswer,
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
  finish?: unknown;
}

/** One piece of text a chunk carries: a choice's content (or completion text), or a tool call's arguments. */
interface Piece {
  choice: number;
  /** The tool call's index, for arguments. */
  tool?: number;
  text: string;
}

type Delta = { content?: unknown; tool_calls?: unknown };
type CallDelta = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

/** The choices of a chunk, each with its index. */
function chunkChoices(chunk: Record<string, unknown>): Array<Record<string, unknown>> {
  if (!Array.isArray(chunk.choices)) return [];
  return chunk.choices.filter((c): c is Record<string, unknown> => Boolean(c) && typeof c === "object");
}

/** The pieces of text a chunk carries, in the order core/content.ts reads a choice: content, then tool arguments. */
function piecesOf(chunk: Record<string, unknown>, requestType: RequestType): Piece[] {
  const pieces: Piece[] = [];
  for (const choice of chunkChoices(chunk)) {
    const index = typeof choice.index === "number" ? choice.index : 0;
    const delta = choice.delta as Delta | undefined;
    const content = requestType === "complete" ? choice.text : delta?.content;
    if (typeof content === "string" && content) pieces.push({ choice: index, text: content });
    if (requestType !== "chatComplete" || !Array.isArray(delta?.tool_calls)) continue;
    for (const call of delta.tool_calls as CallDelta[]) {
      const args = call?.function?.arguments;
      if (typeof args === "string" && args) pieces.push({ choice: index, tool: call?.index ?? 0, text: args });
    }
  }
  return pieces;
}

/**
 * Chat and text completions: every choice's deltas and every tool call's arguments are text the
 * output side checks, so none leaves before it was checked. A piece that starts a new text (another
 * choice, a tool call) is joined to the text before it by a newline, as core/content.ts joins a
 * non-streamed answer's texts; with one choice whose tool calls follow its content, the held text
 * is the checked text, so a redaction can be honoured (otherwise the relay stops the stream).
 */
class CompletionStreamText implements StreamText {
  readonly #choices = new Map<number, StreamedChoice>();
  #joined = "";
  /** The text (choice and tool call) the last piece belonged to. */
  #current: string | undefined;
  constructor(private readonly requestType: RequestType) {}

  #choice(index: number): StreamedChoice {
    let choice = this.#choices.get(index);
    if (!choice) {
      choice = { parts: [], tools: new Map() };
      this.#choices.set(index, choice);
    }
    return choice;
  }

  add(event: SseEvent): AddedText | undefined {
    const chunk = eventObject(event.data);
    if (!chunk) return undefined;
    for (const choice of chunkChoices(chunk)) {
      const streamed = this.#choice(typeof choice.index === "number" ? choice.index : 0);
      if (choice.finish_reason) streamed.finish = choice.finish_reason;
      const calls = (choice.delta as Delta | undefined)?.tool_calls;
      if (this.requestType !== "chatComplete" || !Array.isArray(calls)) continue;
      for (const call of calls as CallDelta[]) {
        const index = call?.index ?? 0;
        const tool = streamed.tools.get(index) ?? { type: "function", function: { name: "", arguments: "" } };
        if (typeof call?.id === "string") tool.id = call.id;
        if (typeof call?.function?.name === "string") tool.function.name += call.function.name;
        if (typeof call?.function?.arguments === "string") tool.function.arguments += call.function.arguments;
        streamed.tools.set(index, tool);
      }
    }
    let text = "";
    let lead = -1;
    for (const piece of piecesOf(chunk, this.requestType)) {
      if (piece.tool === undefined) this.#choice(piece.choice).parts.push(piece.text);
      const key = `${piece.choice}:${piece.tool ?? ""}`;
      const separator = this.#current !== undefined && this.#current !== key ? "\n" : "";
      this.#current = key;
      if (lead < 0) lead = separator.length;
      text += separator + piece.text;
    }
    if (!text) return undefined;
    this.#joined += text;
    return { text, lead: Math.max(lead, 0) };
  }

  rewrite(event: SseEvent, own: string): Buffer {
    const chunk = eventObject(event.data) as Record<string, unknown>;
    const pieces = piecesOf(chunk, this.requestType);
    const piece = pieces[0];
    if (pieces.length !== 1 || !piece) throw new Error("a redaction reached an event carrying several texts at once");
    const choices = chunkChoices(chunk).map((choice) => {
      if ((typeof choice.index === "number" ? choice.index : 0) !== piece.choice) return choice;
      if (this.requestType === "complete") return { ...choice, text: own };
      const delta = choice.delta as Delta;
      if (piece.tool === undefined) return { ...choice, delta: { ...delta, content: own } };
      const calls = (delta.tool_calls as CallDelta[]).map((call) =>
        (call?.index ?? 0) === piece.tool ? { ...call, function: { ...call.function, arguments: own } } : call,
      );
      return { ...choice, delta: { ...delta, tool_calls: calls } };
    });
    return replacedEvent(event, { ...chunk, choices });
  }

  text(): string {
    return this.#joined;
  }

  body(): Record<string, unknown> {
    const entries = [...this.#choices.entries()].sort(([a], [b]) => a - b);
    if (!entries.length) entries.push([0, { parts: [], tools: new Map() }]);
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
          content: c.parts.length || !c.tools.size ? c.parts.join("") : null,
          ...(c.tools.size && { tool_calls: [...c.tools.entries()].sort(([a], [b]) => a - b).map(([, t]) => t) }),
        },
        finish_reason: c.finish ?? (c.tools.size ? "tool_calls" : "stop"),
      })),
    };
  }

  windowBody(text: string): Record<string, unknown> {
    return this.requestType === "complete"
      ? { object: "text_completion", choices: [{ index: 0, text, finish_reason: null }] }
      : {
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: null }],
        };
  }

  isTerminal(event: SseEvent): boolean {
    return isDone(event);
  }
}

/** Embeddings carry no text. */
class NoStreamText implements StreamText {
  add(): undefined {
    return undefined;
  }
  rewrite(event: SseEvent): Buffer {
    return event.raw;
  }
  text(): string {
    return "";
  }
  body(): Record<string, unknown> {
    return {};
  }
  windowBody(): Record<string, unknown> {
    return {};
  }
  isTerminal(event: SseEvent): boolean {
    return isDone(event);
  }
}

/** A small deterministic vector per input, so the mock's embeddings are stable across calls. */
function vector(text: string): number[] {
  const hash = createHash("sha256").update(text).digest();
  return Array.from({ length: 8 }, (_, i) => Number(((hash[i] as number) / 255 - 0.5).toFixed(6)));
}

function dataEvent(value: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
}

/**
 * A non-streamed chat or text completion as the chunks a stream of it would send: per choice, its
 * content in one chunk, each tool call in one, then its finish; then the usage, then `[DONE]`.
 */
function* answerAsStream(requestType: RequestType, body: Record<string, unknown>): Generator<Buffer> {
  const { id, created, model } = body;
  const object = requestType === "complete" ? "text_completion" : "chat.completion.chunk";
  const chunk = (choice: Record<string, unknown>) => dataEvent({ id, object, created, model, choices: [choice] });
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
    const message = (choice?.message ?? {}) as { role?: unknown; content?: unknown; refusal?: unknown; tool_calls?: unknown };
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
    yield chunk(finish);
  }
  if (body.usage) yield dataEvent({ id, object, created, model, choices: [], usage: body.usage });
  yield Buffer.from("data: [DONE]\n\n");
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
  passesBack: (name) => name === "x-request-id" || name.startsWith("x-ratelimit-") || name.startsWith("openai-"),

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
  streamText: (requestType) => (requestType === "embed" ? new NoStreamText() : new CompletionStreamText(requestType)),
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
    const { model, created } = answer;
    if (answer.requestType === "chatComplete") {
      const id = `chatcmpl-mock-${randomUUID()}`;
      const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
      yield dataEvent(chunk({ role: "assistant", content: "" }, null));
      for (const piece of pieces) yield dataEvent(chunk({ content: piece }, null));
      yield dataEvent(chunk({}, "stop"));
    } else {
      const id = `cmpl-mock-${randomUUID()}`;
      const chunk = (piece: string, finish: string | null) => ({
        id,
        object: "text_completion",
        created,
        model,
        choices: [{ index: 0, text: piece, logprobs: null, finish_reason: finish }],
      });
      for (const piece of pieces) yield dataEvent(chunk(piece, null));
      yield dataEvent(chunk("", "stop"));
    }
    yield Buffer.from("data: [DONE]\n\n");
  },
};
