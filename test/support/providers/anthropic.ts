/**
 * A contract fake of the Anthropic Messages API (docs.anthropic.com, "Messages" and "Streaming
 * Messages"; errors as "Errors"): `POST /v1/messages` with `x-api-key` and `anthropic-version`
 * checked, the request body checked as the API checks it (required `max_tokens`, user/assistant
 * roles, block shapes, no fields it does not know), answers with text and tool_use blocks, streams
 * of named events (message_start, content_block_start/delta/stop, ping, message_delta,
 * message_stop) and error bodies `{ type: "error", error: { type, message } }`. Also
 * `POST /v1/messages/count_tokens` ("Count Message tokens"): the same headers, a body without
 * `max_tokens` or `stream`, answered `{ input_tokens }` (here: a word count, see `countOf`).
 */
import type { ServerResponse } from "node:http";
import { type LocalServer, type ReceivedRequest, sendJson, startServer } from "../http-server.js";
import { DEFAULT_USAGE, pieces, type Scripted, type ScriptedTurn } from "./script.js";
import { isObject } from "../../../core/internal.js";

type Json = Record<string, unknown>;

const FIELDS = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "metadata",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "tools",
  "tool_choice",
  "thinking",
  "service_tier",
]);

const STOP: Record<NonNullable<ScriptedTurn["stop"]>, string> = {
  end: "end_turn",
  length: "max_tokens",
  tool: "tool_use",
  stop_sequence: "stop_sequence",
  filter: "refusal",
};

/** The fields of a token count request: the request's content, none of its sampling. */
const COUNT_FIELDS = new Set(["model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers"]);

/** What is wrong with a request body, as the API's invalid_request_error says it; undefined when nothing. */
function invalid(body: unknown, count = false): string | undefined {
  if (!isObject(body)) return "body: must be a JSON object";
  const fields = count ? COUNT_FIELDS : FIELDS;
  for (const key of Object.keys(body)) if (!fields.has(key)) return `${key}: Extra inputs are not permitted`;
  if (typeof body.model !== "string") return "model: Field required";
  if (!count && !Number.isInteger(body.max_tokens)) return "max_tokens: Field required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required";
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system)) return "system: invalid";
  if (body.stop_sequences !== undefined && !Array.isArray(body.stop_sequences)) return "stop_sequences: must be a list";
  if (body.metadata !== undefined && (!isObject(body.metadata) || Object.keys(body.metadata).some((k) => k !== "user_id"))) {
    return "metadata: only user_id is permitted";
  }
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message) || (message.role !== "user" && message.role !== "assistant")) return `messages.${i}.role: invalid`;
    if (typeof message.content === "string") continue;
    if (!Array.isArray(message.content)) return `messages.${i}.content: invalid`;
    for (const [j, block] of message.content.entries()) {
      const where = `messages.${i}.content.${j}`;
      if (!isObject(block)) return `${where}: invalid`;
      if (block.type === "text" && typeof block.text !== "string") return `${where}.text: Field required`;
      if (block.type === "image") {
        const source = isObject(block.source) ? block.source : {};
        const ok =
          (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") ||
          (source.type === "url" && typeof source.url === "string");
        if (!ok) return `${where}.source: invalid`;
      }
      if (
        block.type === "tool_use" &&
        (typeof block.id !== "string" || typeof block.name !== "string" || !isObject(block.input))
      ) {
        return `${where}: tool_use needs id, name and an input object`;
      }
      if (block.type === "tool_result" && typeof block.tool_use_id !== "string") return `${where}.tool_use_id: Field required`;
      if (!["text", "image", "tool_use", "tool_result", "document"].includes(String(block.type))) return `${where}.type: invalid`;
    }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return "tools: must be a list";
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== "string" || !isObject(tool.input_schema)) return `tools.${i}: invalid`;
    }
  }
  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice;
    if (!isObject(choice) || !["auto", "any", "tool", "none"].includes(String(choice.type))) return "tool_choice: invalid";
    if (choice.type === "tool" && typeof choice.name !== "string") return "tool_choice.name: Field required";
  }
  return undefined;
}

function lastUserText(body: Json): string {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = [...messages].reverse().find((m) => m.role === "user");
  if (typeof last?.content === "string") return last.content;
  return (Array.isArray(last?.content) ? last.content : [])
    .map((b: Json) =>
      b.type === "text" ? String(b.text) : b.type === "tool_result" ? `result: ${JSON.stringify(b.content)}` : "",
    )
    .filter(Boolean)
    .join("\n");
}

/** The fake's token count: the words of the system prompt and of every text block, and 10 a tool. */
export function countOf(body: Json): number {
  const texts: string[] = [];
  const add = (content: unknown) => {
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content)) for (const b of content as Json[]) if (typeof b.text === "string") texts.push(b.text);
  };
  add(body.system);
  for (const message of body.messages as Array<{ content: unknown }>) add(message.content);
  const words = texts.join(" ").split(/\s+/).filter(Boolean).length;
  return words + 10 * (Array.isArray(body.tools) ? body.tools.length : 0);
}

function event(name: string, data: Json): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}

/** The fake Anthropic API. */
export class AnthropicFake {
  #server: LocalServer | undefined;
  #queue: Scripted[] = [];
  /** Request bodies received, parsed. */
  readonly bodies: Json[] = [];

  constructor(readonly apiKey: string) {}

  async start(): Promise<this> {
    this.#server = await startServer((request, response) => this.#handle(request, response));
    return this;
  }

  /** The base URL with its version segment, as a provider record takes it. */
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

  #error(response: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.setHeader("request-id", "req_fake_anthropic");
    sendJson(response, status, { type: "error", error: { type, message } });
  }

  #handle(request: ReceivedRequest, response: ServerResponse): void {
    const counting = request.url === "/v1/messages/count_tokens";
    if (request.method !== "POST" || (request.url !== "/v1/messages" && !counting)) {
      return this.#error(response, 404, "not_found_error", `no route ${request.method} ${request.url}`);
    }
    if (request.headers["x-api-key"] !== this.apiKey) {
      return this.#error(response, 401, "authentication_error", "invalid x-api-key");
    }
    if (!request.headers["anthropic-version"]) {
      return this.#error(response, 400, "invalid_request_error", "anthropic-version: header is required");
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return this.#error(response, 400, "invalid_request_error", "the body is not JSON");
    }
    const wrong = invalid(body, counting);
    if (wrong) return this.#error(response, 400, "invalid_request_error", wrong);
    const json = body as Json;
    this.bodies.push(json);
    if (counting) {
      response.setHeader("request-id", "req_fake_anthropic");
      return sendJson(response, 200, { input_tokens: countOf(json) });
    }
    const scripted = this.#queue.shift() ?? { kind: "turn", turn: { text: `echo: ${lastUserText(json)}` } };
    if (scripted.kind === "error") {
      return this.#error(response, scripted.status, scripted.type, scripted.message, scripted.headers);
    }
    const turn = scripted.kind === "turn" ? scripted.turn : { text: "one two three four five six seven eight" };
    const usage = turn.usage ?? DEFAULT_USAGE;
    const content: Json[] = [];
    if (turn.text) content.push({ type: "text", text: turn.text });
    for (const tool of turn.tools ?? []) content.push({ type: "tool_use", id: tool.id, name: tool.name, input: tool.input });
    const stop = STOP[turn.stop ?? (turn.tools?.length ? "tool" : "end")];
    const cached = usage.cached ?? 0;
    const message = {
      id: "msg_fake01",
      type: "message",
      role: "assistant",
      model: json.model,
      content,
      stop_reason: stop,
      stop_sequence: stop === "stop_sequence" ? String((json.stop_sequences as string[])[0]) : null,
      usage: {
        input_tokens: usage.input - cached,
        output_tokens: usage.output,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
      },
    };
    response.setHeader("request-id", "req_fake_anthropic");
    if (json.stream !== true) return sendJson(response, 200, message);

    const events: string[] = [
      event("message_start", {
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...message.usage, output_tokens: 1 },
        },
      }),
    ];
    content.forEach((block, index) => {
      if (block.type === "text") {
        events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
        if (index === 0) events.push(event("ping", {}));
        for (const piece of pieces(String(block.text))) {
          events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
        }
      } else {
        events.push(event("content_block_start", { index, content_block: { ...block, input: {} } }));
        for (const piece of pieces(JSON.stringify(block.input), 6)) {
          events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
        }
      }
      events.push(event("content_block_stop", { index }));
    });
    events.push(
      event("message_delta", {
        delta: { stop_reason: stop, stop_sequence: message.stop_sequence },
        usage: { output_tokens: usage.output },
      }),
    );
    events.push(event("message_stop", {}));

    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (scripted.kind === "cut") return void response.end(events.slice(0, scripted.after).join(""));
    if (scripted.kind === "stream-error") {
      const error = `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: scripted.type, message: scripted.message } })}\n\n`;
      return void response.end(events.slice(0, scripted.after).join("") + error);
    }
    response.end(events.join(""));
  }
}
