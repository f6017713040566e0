/**
 * A fake model provider on 127.0.0.1 speaking the OpenAI (`/v1/chat/completions`,
 * `/v1/completions`, `/v1/embeddings`) and Anthropic (`/v1/messages`) formats, streamed and not.
 * Tests queue behaviours to make it answer an error status, reset the connection, stall, or send
 * malformed, truncated or finely split bodies; with nothing queued it answers "echo: <last text>".
 * Every request it receives is recorded.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { responseAsEvents } from "../../server/formats/responses-events.js";
import { responsesAnswer, responsesUserText } from "./responses-upstream.js";

/** How the next request is answered. */
export type Behaviour =
  /** A JSON answer with this status (and body, else the default answer). */
  | { kind: "json"; status?: number; body?: unknown; headers?: Record<string, string> }
  /** A raw body, sent as is (malformed JSON, HTML error pages). */
  | { kind: "raw"; status?: number; body: string; contentType?: string }
  /** The default answer with this text, streamed when the request asks; `chunkBytes` splits every write. */
  | { kind: "answer"; text: string; chunkBytes?: number; delayMs?: number }
  /** Closes the connection without answering. */
  | { kind: "reset" }
  /** Never answers. */
  | { kind: "stall" }
  /** Declares a body longer than it sends, then closes. */
  | { kind: "truncate" }
  /** Streams a few events (of `text`, by default eight words), then stalls (or resets). */
  | { kind: "stream-break"; after: number; ending: "stall" | "reset"; text?: string }
  /** Streams these raw SSE events as given. */
  | { kind: "events"; events: string[] };

/** A request as the fake received it. */
export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

function lastText(path: string, body: Record<string, unknown>): string {
  if (path.endsWith("/responses")) return responsesUserText(body.input);
  if (path.endsWith("/completions") && !path.endsWith("/chat/completions")) return String(body.prompt ?? "");
  const messages = body.messages as Array<{ content?: unknown }> | undefined;
  const content = messages?.at(-1)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("\n");
  return "";
}

/** The non-streamed answer in the format of `path`. */
export function answerBody(path: string, body: Record<string, unknown>, text: string): Record<string, unknown> {
  const model = body.model ?? "fake-model";
  if (path.endsWith("/responses")) return responsesAnswer(body, text);
  if (path.endsWith("/messages")) {
    return {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 3 },
    };
  }
  if (path.endsWith("/embeddings")) {
    return {
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: [0.1, 0.2, 0.3] }],
      model,
      usage: { prompt_tokens: 3, total_tokens: 3 },
    };
  }
  if (path.endsWith("/chat/completions")) {
    return {
      id: "chatcmpl-fake",
      object: "chat.completion",
      created: 1,
      model,
      choices: [
        { index: 0, message: { role: "assistant", content: text, refusal: null }, logprobs: null, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
    };
  }
  return {
    id: "cmpl-fake",
    object: "text_completion",
    created: 1,
    model,
    choices: [{ index: 0, text, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
  };
}

/** The streamed answer as SSE text, in the format of `path`, a word per event. */
export function streamEvents(path: string, body: Record<string, unknown>, text: string): string[] {
  const model = body.model ?? "fake-model";
  const pieces = text.match(/\s*\S+\s*/g) ?? [];
  if (path.endsWith("/responses")) return [...responseAsEvents(responsesAnswer(body, text), pieces)].map(String);
  if (path.endsWith("/messages")) {
    const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    return [
      event("message_start", {
        type: "message_start",
        message: {
          id: "msg_fake",
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          usage: { input_tokens: 3, output_tokens: 0 },
        },
      }),
      event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      event("ping", { type: "ping" }),
      ...pieces.map((piece) =>
        event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } }),
      ),
      event("content_block_stop", { type: "content_block_stop", index: 0 }),
      event("message_delta", {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 3 },
      }),
      event("message_stop", { type: "message_stop" }),
    ];
  }
  const chat = path.endsWith("/chat/completions");
  const chunk = (piece: string | null, finish: string | null) =>
    `data: ${JSON.stringify(
      chat
        ? {
            id: "chatcmpl-fake",
            object: "chat.completion.chunk",
            created: 1,
            model,
            choices: [{ index: 0, delta: piece === null ? {} : { content: piece }, finish_reason: finish }],
          }
        : {
            id: "cmpl-fake",
            object: "text_completion",
            created: 1,
            model,
            choices: [{ index: 0, text: piece ?? "", finish_reason: finish }],
          },
    )}\n\n`;
  return [...pieces.map((piece) => chunk(piece, null)), chunk(null, "stop"), "data: [DONE]\n\n"];
}

/** The fake provider. */
export class FakeUpstream {
  readonly requests: ReceivedRequest[] = [];
  #queue: Behaviour[] = [];
  #server: http.Server;
  #sockets = new Set<import("node:net").Socket>();
  /** Text of the default answer; `echo: <last text>` when undefined. */
  defaultText: string | undefined;
  /** Requests whose connection closed before their answer was complete (the gateway hung up). */
  abandoned = 0;

  readonly #record: boolean;

  /** `record: false` keeps no request log (for load generation). */
  constructor(options: { record?: boolean } = {}) {
    this.#record = options.record ?? true;
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Starts listening on 127.0.0.1 at a free port. */
  async start(port = 0): Promise<this> {
    this.#server.listen(port, "127.0.0.1");
    await once(this.#server, "listening");
    return this;
  }

  /** `http://127.0.0.1:<port>` */
  get origin(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The base URL an SDK or a provider record takes: the origin with `/v1`. */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** Queues behaviours for the next requests, in order. */
  enqueue(...behaviours: Behaviour[]): void {
    this.#queue.push(...behaviours);
  }

  /** Forgets queued behaviours and recorded requests. */
  reset(): void {
    this.#queue = [];
    this.requests.length = 0;
    this.defaultText = undefined;
    this.abandoned = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    this.#server.close();
    await once(this.#server, "close").catch(() => undefined);
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}");
    } catch {
      body = {};
    }
    const path = req.url ?? "/";
    if (this.#record) this.requests.push({ path, headers: req.headers, body });
    res.on("close", () => {
      if (!res.writableFinished) this.abandoned++;
    });
    const behaviour = this.#queue.shift() ?? { kind: "answer", text: this.defaultText ?? `echo: ${lastText(path, body)}` };
    const stream = body.stream === true && !path.endsWith("/embeddings");
    switch (behaviour.kind) {
      case "json": {
        const status = behaviour.status ?? 200;
        const payload = behaviour.body ?? answerBody(path, body, `echo: ${lastText(path, body)}`);
        res.writeHead(status, { "content-type": "application/json", ...behaviour.headers });
        res.end(JSON.stringify(payload));
        return;
      }
      case "raw":
        res.writeHead(behaviour.status ?? 200, { "content-type": behaviour.contentType ?? "application/json" });
        res.end(behaviour.body);
        return;
      case "reset":
        req.socket.destroy();
        return;
      case "stall":
        return;
      case "truncate":
        res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
        res.write('{"id": "chatcmpl-fake", "choi');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      case "stream-break": {
        res.writeHead(200, { "content-type": "text/event-stream" });
        const events = streamEvents(path, body, behaviour.text ?? "one two three four five six seven eight");
        for (const event of events.slice(0, behaviour.after)) res.write(event);
        if (behaviour.ending === "reset") setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      case "events":
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(behaviour.events.join(""));
        return;
      case "answer": {
        if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
        if (!stream) {
          res.writeHead(200, { "content-type": "application/json", "x-request-id": "req_fake" });
          res.end(JSON.stringify(answerBody(path, body, behaviour.text)));
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "x-request-id": "req_fake" });
        const bytes = Buffer.from(streamEvents(path, body, behaviour.text).join(""));
        const size = behaviour.chunkBytes ?? bytes.length;
        for (let offset = 0; offset < bytes.length; offset += size) {
          res.write(bytes.subarray(offset, offset + size));
          // Separate network reads: let each write leave before the next.
          if (behaviour.chunkBytes) await new Promise((resolve) => setImmediate(resolve));
        }
        res.end();
        return;
      }
    }
  }
}
