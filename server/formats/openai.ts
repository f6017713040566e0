/**
 * The OpenAI wire format: chat completions, text completions and embeddings; a bearer credential;
 * errors as `{ error: { message, type, param, code } }`; streams of `data:` chunks ending with
 * `[DONE]`; `prompt_tokens` / `completion_tokens` usage. Groq, Mistral, Together, Fireworks,
 * DeepSeek, OpenRouter and Ollama speak it too.
 */
import { createHash, randomUUID } from "node:crypto";
import type { HookResults, RequestType } from "../../core/index.js";
import type { SseEvent } from "./sse.js";
import type { AddedText, ErrorFields, MockAnswer, StreamText, WireFormat } from "./format.js";
import { CompletionStreamText } from "./openai-stream-text.js";

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

/** Embeddings carry no text. */
class NoStreamText implements StreamText {
  add(): AddedText[] {
    return [];
  }
  rewrite(event: SseEvent): Buffer {
    return event.raw;
  }
  texts(): ReadonlyMap<number, readonly string[]> {
    return new Map();
  }
  textsOf(): Map<number, string[]> {
    return new Map();
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
 * content in one chunk, each tool call in one, the legacy function_call in one, then its finish;
 * then the usage, then `[DONE]`.
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
