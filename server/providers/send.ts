/**
 * One call of a provider kind (kind.ts), sent by its translation: none (a passthrough) when the
 * provider speaks the client's format, through the OpenAI chat form or the OpenAI embeddings form
 * when it does not, or not at all (400 `provider_format_mismatch`). The answer always comes back as
 * an `UpstreamResponse` in the client's format.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { RequestType } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import { FORMATS } from "../formats/index.js";
import type { Endpoint } from "../formats/endpoints.js";
import type { UpstreamClient, UpstreamResponse } from "../upstream/client.js";
import type { ChatBackend, EmbeddingsBackend, Json, NativeCall, NativeError, ProviderCall, ProviderKind } from "./kind.js";
import { scrubSecrets } from "./options.js";
import { CLIENT_CODECS } from "./codecs/index.js";
import { inputItems, responseNotFound } from "./conversations.js";
import { keptParameters } from "./translate.js";

const CHAT_TYPES: ReadonlySet<RequestType> = new Set<RequestType>(["chatComplete", "messages", "responses"]);

/**
 * How a call is translated on its way to a kind: not at all (a passthrough), through the OpenAI
 * chat form (a client codec and the kind's chat backend), or through the OpenAI embeddings form.
 */
export type Translation = "none" | "chat" | "embeddings";

/** How a kind serves an endpoint, if it does. */
export function translationOf(kind: ProviderKind, endpoint: Endpoint): Translation | undefined {
  if (kind.format === endpoint.format || kind.alsoServes?.includes(endpoint.format)) return "none";
  if (kind.chat && CHAT_TYPES.has(endpoint.requestType) && CLIENT_CODECS[endpoint.format]) return "chat";
  if (kind.embeddings && endpoint.requestType === "embed" && endpoint.format === "openai") return "embeddings";
  return undefined;
}

/** Throws the 400 a client sees when a provider cannot serve its route. */
export function assertServes(kind: ProviderKind, endpoint: Endpoint, label: string): void {
  if (translationOf(kind, endpoint)) return;
  const what = kind.format ? `speaks the ${kind.format} format` : "has its own format";
  const reach = kind.chat ? " and is reached from chat routes only" : "";
  throw new GatewayError(
    "provider_format_mismatch",
    `${endpoint.route} cannot reach ${label}: it ${what}${reach}; ${endpoint.route} needs ${FORMATS[endpoint.format].label} provider`,
  );
}

/** Sends one call to a provider of this kind and answers in the client's format. */
export async function sendCall(kind: ProviderKind, upstream: UpstreamClient, call: ProviderCall): Promise<UpstreamResponse> {
  const translation = translationOf(kind, call.endpoint);
  if (translation === "none") return passthrough(kind, upstream, call);
  if (translation === "chat") return translatedChat(kind, kind.chat as ChatBackend, upstream, call);
  if (translation === "embeddings") return translatedEmbeddings(kind, kind.embeddings as EmbeddingsBackend, upstream, call);
  throw new GatewayError("provider_format_mismatch", `${call.endpoint.route} cannot be served by this provider`);
}

async function passthrough(kind: ProviderKind, upstream: UpstreamClient, call: ProviderCall): Promise<UpstreamResponse> {
  const target = kind.passthrough
    ? await kind.passthrough(call)
    : { url: `${call.provider.baseUrl}${call.endpoint.upstreamPath}${idRouteTail(call)}`, headers: call.headers };
  const method = call.idRoute && { method: call.idRoute.method };
  return answered(kind, await upstream.send({ ...target, body: target.body ?? call.text, ...method, ...common(call) }), call);
}

/** What a Responses id route adds after the endpoint's path: its own path and the client's query. */
export function idRouteTail(call: ProviderCall): string {
  const route = call.idRoute;
  return route ? `${route.path}${route.query ? `?${route.query}` : ""}` : "";
}

/** The provider's answer as its kind has the gateway read it (kind.ts, `answered`). */
function answered(kind: ProviderKind, response: UpstreamResponse, call: ProviderCall): UpstreamResponse {
  return kind.answered ? kind.answered(response, call) : response;
}

function common(call: ProviderCall): { trusted: boolean; timeoutMs?: number; signal?: AbortSignal } {
  return {
    trusted: call.provider.trusted,
    ...(call.timeoutMs !== undefined && { timeoutMs: call.timeoutMs }),
    ...(call.signal && { signal: call.signal }),
  };
}

async function translatedChat(
  kind: ProviderKind,
  backend: ChatBackend,
  upstream: UpstreamClient,
  call: ProviderCall,
): Promise<UpstreamResponse> {
  const codec = CLIENT_CODECS[call.endpoint.format];
  if (!codec) throw new GatewayError("provider_format_mismatch", `${call.endpoint.route} cannot be translated`);
  const chat = keptParameters(codec.toChat(await withConversation(call), call), backend.parameters, call);
  if (call.stream) chat.stream = true;
  const native = await backend.request(chat, call, upstream);
  const response = answered(kind, await upstream.send({ ...native, ...common(call) }), call);
  if (response.status < 200 || response.status >= 300) return errorAnswer(call, response, backend.error.bind(backend));
  if (call.stream) {
    const chunks = scrubbedFailures(backend.stream(response.stream(), chat, call), call, response);
    return streamAnswer(response, codec.streamFromChat(chunks, call.body));
  }
  return jsonAnswer(
    response.status,
    response.headers,
    codec.fromChat(backend.response(await objectOf(response), chat, call), call.body),
  );
}

/**
 * The request with the stored conversation `previous_response_id` names before its own input: a
 * provider reached through chat keeps no conversation, so the gateway sends it whole.
 */
async function withConversation(call: ProviderCall): Promise<Json> {
  const previous = call.body.previous_response_id;
  if (typeof previous !== "string") return call.body;
  if (!call.conversation) throw responseNotFound(previous);
  return { ...call.body, input: [...(await call.conversation(previous)), ...inputItems(call.body.input)] };
}

/**
 * The chunks of a translated stream, whose failure (a provider's error event, quoted in the error
 * event the client's stream ends with) says nothing of the provider's secrets, nor of the
 * credentials the call sent (a binary event stream is decoded before they can be cut).
 */
async function* scrubbedFailures(
  chunks: AsyncIterable<Json>,
  call: ProviderCall,
  response: UpstreamResponse,
): AsyncIterable<Json> {
  try {
    yield* chunks;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const scrubbed = scrubSecrets(error.message, call.provider);
    const message = response.scrub ? response.scrub(scrubbed) : scrubbed;
    throw message === error.message ? error : new GatewayError(error.code, message, { cause: error });
  }
}

/** Native calls in flight at once for one split embeddings request: a few, not a burst the provider throttles. */
const SPLIT_CONCURRENCY = 4;

type EmbeddedPart = { list: Json; response: UpstreamResponse } | { failed: UpstreamResponse };

async function embedOnce(
  kind: ProviderKind,
  backend: EmbeddingsBackend,
  upstream: UpstreamClient,
  call: ProviderCall,
  request: Json,
  native: NativeCall,
): Promise<EmbeddedPart> {
  const response = answered(kind, await upstream.send({ ...native, ...common(call) }), call);
  if (response.status < 200 || response.status >= 300) {
    return { failed: await errorAnswer(call, response, backend.error.bind(backend)) };
  }
  return { list: backend.response(await objectOf(response), request, response.headers), response };
}

/** The lists of consecutive parts of one input as one list: indexes run on, usage adds up. */
function joinedLists(lists: Json[]): Json {
  const data: Json[] = [];
  let prompt = 0;
  let total = 0;
  for (const list of lists) {
    for (const item of list.data as Json[]) data.push({ ...item, index: data.length });
    const usage = list.usage as { prompt_tokens?: number; total_tokens?: number } | undefined;
    prompt += usage?.prompt_tokens ?? 0;
    total += usage?.total_tokens ?? 0;
  }
  return { ...lists[0], data, usage: { prompt_tokens: prompt, total_tokens: total } };
}

/**
 * Embeddings through a backend. An input list longer than one native call takes (`batchSize`:
 * one text for Amazon Titan) is sent in parts, a few at a time, and answered as one list; the
 * first part that fails is the answer.
 */
async function translatedEmbeddings(
  kind: ProviderKind,
  backend: EmbeddingsBackend,
  upstream: UpstreamClient,
  call: ProviderCall,
): Promise<UpstreamResponse> {
  const request = keptParameters(call.body, backend.parameters, call);
  const size = backend.batchSize?.(request);
  const inputs = request.input;
  if (!size || !Array.isArray(inputs) || inputs.length <= size) {
    const part = await embedOnce(kind, backend, upstream, call, request, await backend.request(request, call, upstream));
    if ("failed" in part) return part.failed;
    return jsonAnswer(part.response.status, part.response.headers, part.list);
  }
  const requests: Json[] = [];
  for (let at = 0; at < inputs.length; at += size) requests.push({ ...request, input: inputs.slice(at, at + size) });
  // Every part is built before any is sent: a part the backend refuses leaves no call behind.
  const natives = await Promise.all(requests.map((part) => backend.request(part, call, upstream)));
  const lists: Json[] = [];
  let last: UpstreamResponse | undefined;
  for (let at = 0; at < requests.length; at += SPLIT_CONCURRENCY) {
    const group = requests.slice(at, at + SPLIT_CONCURRENCY);
    // Settled, not raced: no call is left running when the answer goes out.
    const settled = await Promise.allSettled(
      group.map((part, i) => embedOnce(kind, backend, upstream, call, part, natives[at + i] as NativeCall)),
    );
    for (const result of settled) {
      if (result.status === "rejected") throw result.reason;
      if ("failed" in result.value) return result.value.failed;
      lists.push(result.value.list);
      last = result.value.response;
    }
  }
  const response = last as UpstreamResponse;
  return jsonAnswer(response.status, response.headers, joinedLists(lists));
}

async function objectOf(response: UpstreamResponse): Promise<Json> {
  const text = await response.text();
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Json;
  } catch {
    // Answered below.
  }
  throw new GatewayError(
    "upstream_invalid_response",
    `the upstream answered ${response.status} with a body that is not a JSON object`,
  );
}

async function errorAnswer(
  call: ProviderCall,
  response: UpstreamResponse,
  translate: (status: number, text: string, headers: IncomingHttpHeaders) => NativeError,
): Promise<UpstreamResponse> {
  const error = translate(response.status, await response.text(), response.headers);
  const body = FORMATS[call.endpoint.format].errorBody({
    status: error.status,
    code: error.code,
    message: error.message,
    ...(error.type !== undefined && { type: error.type }),
  });
  const headers: IncomingHttpHeaders = { ...response.headers };
  if (error.retryAfter !== undefined) headers["retry-after"] = error.retryAfter;
  return jsonAnswer(error.status, headers, body);
}

/** A translated JSON answer, in the shape of an upstream answer. */
export function jsonAnswer(status: number, headers: IncomingHttpHeaders, body: Json): UpstreamResponse {
  const text = JSON.stringify(body);
  const contentType = "application/json";
  return {
    status,
    headers: { ...withoutBodyHeaders(headers), "content-type": contentType },
    contentType,
    text: () => Promise.resolve(text),
    async *stream() {
      yield Buffer.from(text);
    },
    discard() {},
  };
}

/** A translated stream, in the shape of an upstream answer; discarding it frees the upstream's. */
export function streamAnswer(upstream: UpstreamResponse, events: AsyncIterable<Buffer>): UpstreamResponse {
  const contentType = "text/event-stream";
  return {
    status: upstream.status,
    headers: { ...withoutBodyHeaders(upstream.headers), "content-type": contentType },
    contentType,
    async text() {
      const parts: Buffer[] = [];
      for await (const part of events) parts.push(part);
      return Buffer.concat(parts).toString("utf8");
    },
    stream: () => events,
    discard: () => upstream.discard(),
  };
}

/** The native body's length and encoding say nothing of the translated one. */
function withoutBodyHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const { "content-length": _length, "content-encoding": _encoding, "transfer-encoding": _transfer, ...rest } = headers;
  return rest;
}
