/**
 * A contract fake of the OpenAI Chat Completions API (platform.openai.com API reference, "Chat
 * Completions": create, the chat completion object and the chunk object; errors as "Error
 * codes"): `POST /v1/chat/completions` with `Authorization: Bearer <key>` checked, the body checked
 * as the API checks it (roles, a tool message answering a tool call of the assistant message
 * before it, `stream_options` only with `stream`), answers with content and tool_calls, streams of
 * `data:` chunks (the role first, content and tool-call argument deltas, the finish reason, a
 * usage chunk with no choices when `stream_options.include_usage` asks, then `[DONE]`) and error
 * bodies `{ error: { message, type, param, code } }`.
 */
import type { ServerResponse } from "node:http";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../http-server.js";
import { DEFAULT_USAGE, pieces, type Scripted, type ScriptedTurn } from "./script.js";
import { isObject } from "../../../core/internal.js";

type Json = Record<string, unknown>;

const FINISH: Record<NonNullable<ScriptedTurn["stop"]>, string> = {
  end: "stop",
  length: "length",
  tool: "tool_calls",
  stop_sequence: "stop",
  filter: "content_filter",
};

function invalid(body: unknown): { message: string; param: string } | undefined {
  if (!isObject(body)) return { message: "the body must be a JSON object", param: "" };
  if (typeof body.model !== "string") return { message: "you must provide a model parameter", param: "model" };
  if (!Array.isArray(body.messages) || body.messages.length === 0) return { message: "messages is required", param: "messages" };
  if (body.stream_options !== undefined && body.stream !== true) {
    return { message: "stream_options is only allowed when stream is true", param: "stream_options" };
  }
  let open = new Set<string>();
  for (const [i, message] of body.messages.entries()) {
    const param = `messages[${i}]`;
    if (!isObject(message) || !["system", "developer", "user", "assistant", "tool"].includes(String(message.role))) {
      return { message: "invalid role", param: `${param}.role` };
    }
    if (message.role === "tool") {
      if (typeof message.tool_call_id !== "string" || !open.has(message.tool_call_id)) {
        return {
          message: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
          param: `${param}.role`,
        };
      }
      continue;
    }
    open = new Set();
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as Json[]) {
        const fn = isObject(call.function) ? call.function : {};
        if (typeof call.id !== "string" || typeof fn.name !== "string" || typeof fn.arguments !== "string") {
          return { message: "a tool call needs an id, a function name and arguments", param: `${param}.tool_calls` };
        }
        open.add(call.id);
      }
    }
    if (Array.isArray(message.content)) {
      for (const [j, part] of (message.content as Json[]).entries()) {
        const ok =
          (part.type === "text" && typeof part.text === "string") ||
          (part.type === "image_url" &&
            message.role === "user" &&
            isObject(part.image_url) &&
            typeof part.image_url.url === "string");
        if (!ok) return { message: "invalid content part", param: `${param}.content[${j}]` };
      }
    }
  }
  if (body.tools !== undefined) {
    for (const [i, tool] of (body.tools as Json[]).entries()) {
      if (tool.type !== "function" || !isObject(tool.function) || typeof tool.function.name !== "string") {
        return { message: "invalid tool", param: `tools[${i}]` };
      }
    }
  }
  return undefined;
}

function lastUserText(body: Json): string {
  const messages = body.messages as Json[];
  const last = messages.at(-1);
  if (last?.role === "tool") return `result: ${String(last.content)}`;
  const user = [...messages].reverse().find((m) => m.role === "user");
  if (typeof user?.content === "string") return user.content;
  return ((user?.content as Json[] | undefined) ?? []).map((p) => (p.type === "text" ? String(p.text) : "")).join("\n");
}

/** The fake OpenAI API. */
export class OpenAiFake {
  #server: LocalServer | undefined;
  #queue: Scripted[] = [];
  readonly bodies: Json[] = [];

  constructor(readonly apiKey: string) {}

  async start(): Promise<this> {
    this.#server = await startServer((request, response) => this.#handle(request, response));
    return this;
  }

  get baseUrl(): string {
    return `${this.#server?.origin}/v1`;
  }

  get requests(): ReceivedRequest[] {
    return this.#server?.requests ?? [];
  }

  enqueue(...answers: Scripted[]): void {
    this.#queue.push(...answers);
  }

  reset(): void {
    this.#queue = [];
    this.bodies.length = 0;
    this.requests.length = 0;
  }

  close(): Promise<void> {
    return this.#server?.close() ?? Promise.resolve();
  }

  #error(response: ServerResponse, status: number, error: Json, headers: Record<string, string> = {}): void {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    sendJson(response, status, { error: { param: null, code: null, ...error } });
  }

  #handle(request: ReceivedRequest, response: ServerResponse): void {
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      return this.#error(response, 404, { message: `Unknown request URL: ${request.url}`, type: "invalid_request_error" });
    }
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) {
      return this.#error(response, 401, {
        message: "Incorrect API key provided",
        type: "invalid_request_error",
        code: "invalid_api_key",
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return this.#error(response, 400, {
        message: "We could not parse the JSON body of your request.",
        type: "invalid_request_error",
      });
    }
    const wrong = invalid(body);
    if (wrong) return this.#error(response, 400, { ...wrong, type: "invalid_request_error" });
    const json = body as Json;
    this.bodies.push(json);
    const scripted = this.#queue.shift() ?? { kind: "turn", turn: { text: `echo: ${lastUserText(json)}` } };
    if (scripted.kind === "error") {
      const { status, type, message, code, headers } = scripted;
      return this.#error(response, status, { message, type, code: code ?? null }, headers);
    }
    const turn = scripted.kind === "turn" ? scripted.turn : { text: "one two three four five six seven eight" };
    const usage = turn.usage ?? DEFAULT_USAGE;
    const finish = FINISH[turn.stop ?? (turn.tools?.length ? "tool" : "end")];
    const toolCalls = (turn.tools ?? []).map((tool) => ({
      id: tool.id,
      type: "function",
      function: { name: tool.name, arguments: JSON.stringify(tool.input) },
    }));
    const usageBody = {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    };
    response.setHeader("x-request-id", "req_fake_openai");
    const base = { id: "chatcmpl-fake01", created: 1700000000, model: json.model };
    if (json.stream !== true) {
      const message: Json = { role: "assistant", content: turn.text ?? null, refusal: null };
      if (toolCalls.length) message.tool_calls = toolCalls;
      return sendJson(response, 200, {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage: usageBody,
      });
    }
    const chunk = (delta: Json, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`;
    const events = [chunk({ role: "assistant", content: "", refusal: null })];
    for (const piece of pieces(turn.text ?? "")) events.push(chunk({ content: piece }));
    toolCalls.forEach((call, index) => {
      events.push(
        chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }),
      );
      for (const piece of pieces(call.function.arguments, 6))
        events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(chunk({}, finish));
    if ((json.stream_options as Json | undefined)?.include_usage === true) {
      events.push(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage: usageBody })}\n\n`);
    }
    events.push("data: [DONE]\n\n");
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (scripted.kind === "cut") return void response.end(events.slice(0, scripted.after).join(""));
    if (scripted.kind === "stream-error") {
      const error = `data: ${JSON.stringify({ error: { message: scripted.message, type: scripted.type, param: null, code: null } })}\n\n`;
      return void response.end(events.slice(0, scripted.after).join("") + error);
    }
    response.end(events.join(""));
  }
}
