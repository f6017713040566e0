/**
 * Contract fake of the Amazon Bedrock runtime, on 127.0.0.1. Follows the public Amazon Bedrock API
 * Reference: Converse (`POST /model/{modelId}/converse`), ConverseStream (`POST
 * /model/{modelId}/converse-stream`, answered in the AWS event stream encoding,
 * `application/vnd.amazon.eventstream`, with messageStart, contentBlockStart, contentBlockDelta,
 * contentBlockStop, messageStop and metadata events, and exception messages), InvokeModel (`POST
 * /model/{modelId}/invoke`) for Amazon Titan Text Embeddings (v1, v2) and Cohere Embed, and the
 * common errors: `{"message"}` bodies typed by the `x-amzn-errortype` header. Every request must be
 * signed with Signature Version 4 (service `bedrock`): the fake recomputes the signature with AWS's
 * signer from its known keys over exactly what arrived, and refuses a wrong one with AWS's 403
 * (whose message, like AWS's, echoes the canonical request with the signed headers' values).
 *
 * What the model says depends on the last user text: "weather" with tools declared calls the first
 * tool with {"city":"Paris"}; "throttle", "overload", "too long", "forbidden" answer AWS's errors;
 * "mid-stream" streams some text then a throttlingException; "cut" ends a stream without its
 * messageStop; "count to N" answers the numbers 1..N; anything else is echoed. A Titan text saying "throttle" is
 * throttled.
 */
import type { ServerResponse } from "node:http";
import { EventStreamCodec } from "@smithy/core/event-streams";
import { signRequest } from "../../../core/internal.js";
import { type LocalServer, type ReceivedRequest, startServer } from "../http-server.js";

export const BEDROCK_ACCESS_KEY_ID = "AKIAFAKEPROVIDER7777";
export const BEDROCK_SECRET_ACCESS_KEY = "fakeProviderSecret/+0123456789abcdefghijklmn";
export const BEDROCK_SESSION_TOKEN = "FwoGZXIvYXdzEFAKEsessionTOKEN/+0123456789abcdef==";
export const BEDROCK_REGION = "us-west-2";

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

type Json = Record<string, unknown>;

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
  (text) => Buffer.from(text, "utf8"),
);

/** A running fake: the requests it received, with their decoded model ids and bodies. */
export interface BedrockFake {
  origin: string;
  requests: ReceivedRequest[];
  /** Decoded `{modelId}` and operation of each request, in order. */
  calls: Array<{ model: string; operation: string; body: Json }>;
  reset(): void;
  close(): Promise<void>;
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ message });
  res.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    "x-amzn-requestid": "fake-request-id",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function sendJson(res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Checks the signature; answers AWS's 403 and returns false when it does not hold. */
async function verified(r: ReceivedRequest, res: ServerResponse): Promise<boolean> {
  const auth = AUTH.exec(String(r.headers.authorization ?? ""));
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(String(r.headers["x-amz-date"] ?? ""));
  if (!auth || !date) {
    sendError(res, 403, "MissingAuthenticationTokenException", "Missing Authentication Token");
    return false;
  }
  const token = r.headers["x-amz-security-token"];
  if (auth[1] !== BEDROCK_ACCESS_KEY_ID || (token !== undefined && token !== BEDROCK_SESSION_TOKEN)) {
    sendError(res, 403, "UnrecognizedClientException", "The security token included in the request is invalid.");
    return false;
  }
  const signedNames = (auth[5] as string).split(";");
  const headers: Record<string, string> = {};
  for (const name of signedNames) {
    if (name !== "host" && name !== "x-amz-date" && name !== "x-amz-security-token")
      headers[name] = String(r.headers[name] ?? "");
  }
  const signingDate = new Date(Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!));
  const expected = await signRequest(
    { method: "POST", url: new URL(`http://${r.headers.host}${r.url}`), headers, body: r.body },
    {
      accessKeyId: BEDROCK_ACCESS_KEY_ID,
      secretAccessKey: BEDROCK_SECRET_ACCESS_KEY,
      ...(typeof token === "string" && { sessionToken: token }),
    },
    auth[3] as string,
    "bedrock",
    signingDate,
  );
  if (auth[3] === BEDROCK_REGION && auth[4] === "bedrock" && expected.authorization === r.headers.authorization) return true;
  // AWS's own message goes on with the canonical request, signed header values included.
  const canonical = signedNames.map((name) => `${name}:${String(r.headers[name] ?? "")}`).join("\n");
  sendError(
    res,
    403,
    "InvalidSignatureException",
    `The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\nThe Canonical String for this request should have been\n'POST\n${r.url}\n\n${canonical}\n\n${signedNames.join(";")}'\n`,
  );
  return false;
}

function lastUserText(body: Json): string {
  const messages = (body.messages ?? []) as Array<{ role: string; content: Json[] }>;
  const last = [...messages].reverse().find((m) => m.role === "user");
  return (last?.content ?? []).map((block) => (typeof block.text === "string" ? block.text : "")).join(" ");
}

function hasToolResult(body: Json): boolean {
  const messages = (body.messages ?? []) as Array<{ content: Json[] }>;
  return messages.at(-1)?.content.some((block) => block.toolResult !== undefined) ?? false;
}

interface Reply {
  blocks: Json[];
  stopReason: string;
}

/** What the fake model answers, or the error it raises. */
function reply(body: Json): Reply | { status: number; type: string; message: string } {
  const text = lastUserText(body);
  if (/throttle/.test(text))
    return { status: 429, type: "ThrottlingException", message: "Too many requests, please wait before trying again." };
  if (/overload/.test(text))
    return { status: 503, type: "ServiceUnavailableException", message: "Bedrock is unable to process your request." };
  if (/too long/.test(text))
    return { status: 400, type: "ValidationException", message: "Input is too long for requested model." };
  if (/forbidden/.test(text)) {
    return {
      status: 403,
      type: "AccessDeniedException",
      message: "You don't have access to the model with the specified model ID.",
    };
  }
  const tools = ((body.toolConfig as { tools?: Array<{ toolSpec: { name: string } }> } | undefined)?.tools ?? []).map(
    (tool) => tool.toolSpec.name,
  );
  if (/weather/.test(text) && tools.length && !hasToolResult(body)) {
    return {
      blocks: [
        { text: "Let me look." },
        { toolUse: { toolUseId: "tooluse_fake0001", name: tools[0], input: { city: "Paris" } } },
      ],
      stopReason: "tool_use",
    };
  }
  if (hasToolResult(body)) {
    const result = (body.messages as Array<{ content: Json[] }>).at(-1)?.content.find((b) => b.toolResult)?.toolResult as {
      content: Json[];
    };
    return { blocks: [{ text: `The tool said: ${String(result.content[0]?.text)}` }], stopReason: "end_turn" };
  }
  const count = /count to (\d+)/.exec(text);
  if (count) {
    const numbers = Array.from({ length: Number(count[1]) }, (_, i) => `${i + 1}`).join(" ");
    return { blocks: [{ text: numbers }], stopReason: "end_turn" };
  }
  const max = (body.inferenceConfig as { maxTokens?: number } | undefined)?.maxTokens;
  const words = `echo: ${text}`.split(" ");
  if (max !== undefined && words.length > max)
    return { blocks: [{ text: words.slice(0, max).join(" ") }], stopReason: "max_tokens" };
  return { blocks: [{ text: words.join(" ") }], stopReason: "end_turn" };
}

function usage(body: Json, reply: Reply): Json {
  const inputTokens = lastUserText(body).split(/\s+/).filter(Boolean).length + 3;
  const outputTokens = reply.blocks.reduce((n, b) => n + (typeof b.text === "string" ? b.text.split(" ").length : 5), 0);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens + 2, cacheReadInputTokens: 2 };
}

function event(type: string, payload: Json): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    // AWS pads each event with a `p` field so lengths give nothing away.
    body: Buffer.from(JSON.stringify({ ...payload, p: "abcdefghij" })),
  });
}

function exception(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "exception" },
    },
    body: Buffer.from(JSON.stringify({ message })),
  });
}

/** The events of a streamed reply: text word by word, a tool call's input in two pieces. */
function streamEvents(body: Json, answer: Reply, text: string): Uint8Array[] {
  const events = [event("messageStart", { role: "assistant" })];
  answer.blocks.forEach((block, index) => {
    if (typeof block.text === "string") {
      events.push(event("contentBlockStart", { start: {}, contentBlockIndex: index }));
      for (const [i, word] of block.text.split(" ").entries()) {
        events.push(event("contentBlockDelta", { delta: { text: i ? ` ${word}` : word }, contentBlockIndex: index }));
      }
    } else {
      const use = block.toolUse as { toolUseId: string; name: string; input: Json };
      events.push(
        event("contentBlockStart", {
          start: { toolUse: { toolUseId: use.toolUseId, name: use.name } },
          contentBlockIndex: index,
        }),
      );
      const input = JSON.stringify(use.input);
      const half = Math.floor(input.length / 2);
      for (const piece of [input.slice(0, half), input.slice(half)]) {
        events.push(event("contentBlockDelta", { delta: { toolUse: { input: piece } }, contentBlockIndex: index }));
      }
    }
    events.push(event("contentBlockStop", { contentBlockIndex: index }));
  });
  if (/mid-stream/.test(text))
    return [...events, exception("throttlingException", "Too many tokens, please wait before trying again.")];
  if (/cut/.test(text)) return events;
  events.push(event("messageStop", { stopReason: answer.stopReason }));
  events.push(event("metadata", { usage: usage(body, answer), metrics: { latencyMs: 42 } }));
  return events;
}

/** Writes the events with their frames split across writes, as TCP may deliver them. */
async function writeEvents(res: ServerResponse, events: Uint8Array[]): Promise<void> {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "fake-request-id" });
  for (const bytes of events) {
    const cut = Math.floor(bytes.length / 3);
    res.write(bytes.subarray(0, cut));
    await new Promise((resolve) => setImmediate(resolve));
    res.write(bytes.subarray(cut));
  }
  res.end();
}

/** A deterministic vector for a text. */
function vector(text: string, size: number): number[] {
  let seed = 7;
  for (const c of text) seed = (seed * 31 + c.charCodeAt(0)) % 1_000_003;
  return Array.from({ length: size }, (_, i) => ((seed * (i + 1)) % 997) / 997 - 0.5);
}

function invoke(model: string, body: Json, res: ServerResponse): void {
  if (/amazon\.titan-embed/.test(model)) {
    const keys = Object.keys(body);
    const v2 = /titan-embed-text-v2/.test(model);
    const allowed = v2 ? ["inputText", "dimensions", "normalize", "embeddingTypes"] : ["inputText"];
    if (typeof body.inputText !== "string" || keys.some((key) => !allowed.includes(key))) {
      sendError(res, 400, "ValidationException", "Malformed input request, please reformat your input and try again.");
      return;
    }
    if (/throttle/.test(body.inputText)) {
      sendError(res, 429, "ThrottlingException", "Too many requests, please wait before trying again.");
      return;
    }
    const size = v2 ? ((body.dimensions as number | undefined) ?? 1024) : 1536;
    sendJson(res, { embedding: vector(body.inputText, size), inputTextTokenCount: body.inputText.split(/\s+/).length });
    return;
  }
  if (/cohere\.embed/.test(model)) {
    const texts = body.texts;
    if (!Array.isArray(texts) || typeof body.input_type !== "string") {
      sendError(res, 400, "ValidationException", "Malformed input request: #: required key [input_type] not found");
      return;
    }
    const tokens = (texts as string[]).reduce((n, t) => n + t.split(/\s+/).length, 0);
    sendJson(
      res,
      {
        id: "fake-embed-id",
        embeddings: (texts as string[]).map((t) => vector(t, 1024)),
        response_type: "embeddings_floats",
        texts,
      },
      { "x-amzn-bedrock-input-token-count": String(tokens) },
    );
    return;
  }
  sendError(res, 400, "ValidationException", "The provided model identifier is invalid.");
}

/** Starts the fake. */
export async function startBedrockFake(): Promise<BedrockFake> {
  const calls: BedrockFake["calls"] = [];
  const server: LocalServer = await startServer(async (r, res) => {
    if (!(await verified(r, res))) return;
    const route = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/.exec(r.url);
    if (r.method !== "POST" || !route) {
      sendError(res, 404, "UnknownOperationException", "Unknown operation");
      return;
    }
    const model = decodeURIComponent(route[1] as string);
    const operation = route[2] as string;
    let body: Json;
    try {
      body = JSON.parse(r.body) as Json;
    } catch {
      sendError(res, 400, "SerializationException", "Malformed JSON");
      return;
    }
    calls.push({ model, operation, body });
    if (operation === "invoke") {
      invoke(model, body, res);
      return;
    }
    if (!/anthropic\.|amazon\.nova|meta\.llama/.test(model)) {
      sendError(res, 400, "ValidationException", "The provided model identifier is invalid.");
      return;
    }
    const answer = reply(body);
    if ("status" in answer) {
      sendError(res, answer.status, answer.type, answer.message);
      return;
    }
    if (operation === "converse-stream") {
      await writeEvents(res, streamEvents(body, answer, lastUserText(body)));
      return;
    }
    sendJson(
      res,
      {
        output: { message: { role: "assistant", content: answer.blocks } },
        stopReason: answer.stopReason,
        usage: usage(body, answer),
        metrics: { latencyMs: 42 },
      },
      { "x-amzn-requestid": "fake-request-id" },
    );
  });
  return {
    origin: server.origin,
    requests: server.requests,
    calls,
    reset() {
      server.requests.length = 0;
      calls.length = 0;
    },
    close: () => server.close(),
  };
}
