/**
 * A fake OpenAI server speaking the Responses API (`POST /v1/responses`), JSON and streamed, on
 * 127.0.0.1. It answers "echo: <last user text>"; a request with a `get_weather` function tool
 * and no tool result yet is answered with a call of it, and a request carrying a
 * `function_call_output` with "The weather: <output>". A queued text replaces the answer's.
 * Streams are written in writes of `chunkBytes`, so events arrive split across network reads.
 * Like OpenAI it keeps what it answered (unless `store: false`), for `GET` and `DELETE
 * /v1/responses/{id}`, `GET /v1/responses/{id}/input_items` and `POST /v1/responses/{id}/cancel`.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  functionCallItem,
  messageItem,
  responseAsEvents,
  responseObject,
  responsesUsage,
} from "../../server/formats/responses-events.js";

type Obj = Record<string, unknown>;

/** A request as the fake received it. */
export interface ResponsesRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Obj;
}

/** The text of the last user message of a Responses input. */
export function responsesUserText(input: unknown): string {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  const user = (input as Obj[]).filter((item) => item.role === "user").at(-1);
  const content = user?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return (content as Obj[]).map((part) => String(part.text ?? "")).join("\n");
  return "";
}

/** The answer the fake gives to a request. */
export function responsesAnswer(body: Obj, text?: string): Obj {
  const input = Array.isArray(body.input) ? (body.input as Obj[]) : [];
  const result = input.find((item) => item.type === "function_call_output");
  const tools = Array.isArray(body.tools) ? (body.tools as Obj[]) : [];
  let output: Obj[];
  if (text === undefined && !result && tools.some((tool) => tool.name === "get_weather")) {
    output = [
      functionCallItem("fc_fake_1", "call_fake_1", "get_weather", JSON.stringify({ city: responsesUserText(body.input) })),
    ];
  } else {
    const answer = text ?? (result ? `The weather: ${String(result.output)}` : `echo: ${responsesUserText(body.input)}`);
    output = [messageItem("msg_fake_1", [answer])];
  }
  return responseObject({
    id: "resp_fake_1",
    model: String(body.model ?? "fake-model"),
    createdAt: 1,
    status: "completed",
    output,
    usage: responsesUsage(5, 7),
    request: body,
  });
}

/** The fake server. */
export class ResponsesUpstream {
  readonly requests: ResponsesRequest[] = [];
  /** Texts of the next answers, in order. */
  readonly texts: string[] = [];
  /** The responses it keeps, by id, with the input items of their request. */
  readonly stored = new Map<string, { response: Obj; input: Obj[] }>();
  chunkBytes = 7;
  #server?: http.Server;

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server?.address() as AddressInfo).port}/v1`;
  }

  async start(): Promise<this> {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => void this.#answer(req, res, Buffer.concat(chunks).toString("utf8")));
    });
    this.#server.listen(0, "127.0.0.1");
    await once(this.#server, "listening");
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.texts.length = 0;
    this.stored.clear();
  }

  async #answer(req: http.IncomingMessage, res: http.ServerResponse, text: string): Promise<void> {
    const body = JSON.parse(text || "{}") as Obj;
    this.requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
    const idRoute = /^\/v1\/responses\/([^/?]+)(\/input_items|\/cancel)?(?:\?.*)?$/.exec(req.url ?? "");
    if (idRoute) return this.#idRoute(req.method ?? "", decodeURIComponent(idRoute[1] as string), idRoute[2] ?? "", res);
    if (req.method !== "POST" || !req.url?.startsWith("/v1/responses")) return notFound(res, "not found");
    const answer = responsesAnswer(body, this.texts.shift());
    if (body.store !== false) {
      const input =
        typeof body.input === "string"
          ? [{ type: "message", role: "user", content: [{ type: "input_text", text: body.input }] }]
          : body.input;
      this.stored.set(String(answer.id), { response: answer, input: (input ?? []) as Obj[] });
    }
    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json", "x-request-id": "req_fake" });
      res.end(JSON.stringify(answer));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const item = (answer.output as Obj[])[0] as Obj;
    const words = item.type === "message" ? String(((item.content as Obj[])[0] as Obj).text).split(/(?<= )/) : undefined;
    const bytes = Buffer.concat([...responseAsEvents(answer, words)]);
    for (let at = 0; at < bytes.length; at += this.chunkBytes) {
      if (!res.write(bytes.subarray(at, at + this.chunkBytes))) await once(res, "drain");
    }
    res.end();
  }

  /** The id routes, answered as OpenAI answers them. */
  #idRoute(method: string, id: string, tail: string, res: http.ServerResponse): void {
    const kept = this.stored.get(id);
    if (!kept) return notFound(res, `Response with id '${id}' not found.`);
    let answer: Obj;
    if (method === "GET" && tail === "") answer = kept.response;
    else if (method === "DELETE" && tail === "") {
      this.stored.delete(id);
      answer = { id, object: "response", deleted: true };
    } else if (method === "GET" && tail === "/input_items") {
      const data = kept.input.map((item, i) => ({ id: `item_${i}`, ...item }));
      answer = { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false };
    } else if (method === "POST" && tail === "/cancel") {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: {
            message: "Only responses created with background=true can be cancelled.",
            type: "invalid_request_error",
            param: null,
            code: null,
          },
        }),
      );
      return;
    } else return notFound(res, "not found");
    res.writeHead(200, { "content-type": "application/json", "x-request-id": "req_fake_id_route" });
    res.end(JSON.stringify(answer));
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}

function notFound(res: http.ServerResponse, message: string): void {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code: null } }));
}
