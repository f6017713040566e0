/**
 * The OpenAI wire format: chat completions, text completions and embeddings; a bearer credential;
 * errors as `{ error: { message, type, param, code } }`; streams of `data:` chunks ending with
 * `[DONE]`; `prompt_tokens` / `completion_tokens` usage. Groq, Mistral, Together, Fireworks,
 * DeepSeek, OpenRouter and Ollama speak it too.
 */
import { createHash, randomUUID } from "node:crypto";
import type { HookResults, RequestType } from "../../core/index.js";
import type { SseEvent } from "../upstream/sse.js";
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

function firstChoice(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Array.isArray(chunk.choices)) return undefined;
  const choice = chunk.choices.find((c) => c && typeof c === "object" && ((c as { index?: number }).index ?? 0) === 0);
  return choice as Record<string, unknown> | undefined;
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

/** Chat and text completions: the first choice's deltas, and its tool calls for the body. */
class CompletionStreamText implements StreamText {
  #parts: string[] = [];
  readonly #tools = new Map<number, ToolCall>();
  constructor(private readonly requestType: RequestType) {}

  #addToolCalls(calls: unknown): void {
    if (!Array.isArray(calls)) return;
    for (const call of calls as Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>) {
      const index = call?.index ?? 0;
      const tool = this.#tools.get(index) ?? { type: "function", function: { name: "", arguments: "" } };
      if (typeof call?.id === "string") tool.id = call.id;
      if (typeof call?.function?.name === "string") tool.function.name += call.function.name;
      if (typeof call?.function?.arguments === "string") tool.function.arguments += call.function.arguments;
      this.#tools.set(index, tool);
    }
  }

  add(event: SseEvent): AddedText | undefined {
    const chunk = eventObject(event.data);
    if (!chunk) return undefined;
    const choice = firstChoice(chunk);
    if (!choice) return undefined;
    if (this.requestType === "chatComplete")
      this.#addToolCalls((choice.delta as { tool_calls?: unknown } | undefined)?.tool_calls);
    const piece = this.requestType === "complete" ? choice.text : (choice.delta as { content?: unknown } | undefined)?.content;
    if (typeof piece !== "string" || !piece) return undefined;
    this.#parts.push(piece);
    return { text: piece, lead: 0 };
  }

  rewrite(event: SseEvent, own: string): Buffer {
    const chunk = eventObject(event.data) as Record<string, unknown>;
    const choices = (chunk.choices as Array<Record<string, unknown>>).map((choice) => {
      if ((choice.index ?? 0) !== 0) return choice;
      if (this.requestType === "complete") return { ...choice, text: own };
      return { ...choice, delta: { ...(choice.delta as Record<string, unknown>), content: own } };
    });
    return replacedEvent(event, { ...chunk, choices });
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
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: text,
                ...(this.#tools.size && { tool_calls: [...this.#tools.entries()].sort(([a], [b]) => a - b).map(([, t]) => t) }),
              },
              finish_reason: this.#tools.size ? "tool_calls" : "stop",
            },
          ],
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
