/**
 * What a provider kind is, and one call of it. Most kinds speak a format guardgate serves (the
 * OpenAI or the Anthropic API): a request in that format passes through to `baseUrl +
 * upstreamPath`, or to the URL and headers the kind's `passthrough` gives (Azure's deployment URL).
 * A request in the other format, and every request to a kind with a wire format of its own
 * (Bedrock, Gemini), is translated through the OpenAI chat form: the client's codec
 * (codecs/codec.ts) turns it into an OpenAI chat request, the kind's `chat` backend sends that in
 * its own format and turns the answer, the stream and the errors back into OpenAI chat objects,
 * and the codec writes those in the client's format (send.ts chooses and runs the translation).
 * Either way the gateway receives an `UpstreamResponse` in the client's format, so guardrails, the
 * relay, the cache and the log see one format per route.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { FormatName } from "../formats/index.js";
import type { ProviderFilters } from "../logs/record.js";
import type { Endpoint } from "../formats/endpoints.js";
import type { UpstreamClient, UpstreamResponse } from "../upstream/client.js";
import type { HttpProvider } from "./provider.js";

/** A JSON object as it is read off the wire. */
export type Json = Record<string, unknown>;

/** One call of a provider, in the client's wire format. */
export interface ProviderCall {
  /** The client's route: its format, request type and the path a passthrough appends. */
  endpoint: Endpoint;
  /** The request to send, in the client's format (model already resolved, overrides applied). */
  body: Json;
  /** `body` serialised: what a passthrough call sends. */
  text: string;
  /** Whether the upstream is asked for a stream. */
  stream: boolean;
  /** The headers a passthrough call sends: forwarded client headers, format defaults, the provider's own. */
  headers: Record<string, string>;
  provider: HttpProvider;
  /** Parameters the target cannot honour are dropped instead of refused (config `drop_params`). */
  dropParams: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Where the kind notes what the request log keeps of this call; filled while the answer is read. */
  facts?: CallFacts;
  /**
   * A Responses API id route passed through (`GET /v1/responses/{id}`, its `input_items`, `DELETE`,
   * `cancel`): the method, the path after the endpoint's own, and the client's query string.
   */
  idRoute?: IdRoute;
  /** The items of a stored Responses conversation by `previous_response_id`, for a call translated through chat. */
  conversation?: (previousResponseId: string) => Promise<Json[]>;
}

/**
 * What a kind learns of one call for the request log, beyond status and body: its content
 * filter's verdicts (Azure's content filter, Gemini's safety ratings). Filled as the answer is
 * read, so a stream's facts are complete when the stream ends, which is when its log is written.
 */
export interface CallFacts {
  provider_filters?: ProviderFilters;
}

/** A Responses API id route as a passthrough call makes it. */
export interface IdRoute {
  method: "GET" | "DELETE" | "POST";
  /** After the endpoint's path: `/{id}`, `/{id}/input_items`, `/{id}/cancel`. */
  path: string;
  /** The client's query string, without its `?`; empty when none. */
  query: string;
}

/** The URL and headers of a passthrough call. */
export interface PassthroughTarget {
  url: string;
  headers: Record<string, string>;
  /** The body to send, when not the client's as it came (Azure's Responses API names the deployment as the model). */
  body?: string;
}

/** A request in a provider's own format, ready to send. */
export interface NativeCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A provider's error, as the client's format will say it. */
export interface NativeError {
  status: number;
  /** The gateway-wide code (`rate_limited`, `context_length_exceeded`, …), or the provider's own. */
  code: string | null;
  message: string;
  /** Overrides the error type the status maps to in the client's format. */
  type?: string;
  /** Passed back as `retry-after`. */
  retryAfter?: string;
}

/**
 * A provider reached through the OpenAI chat form. `parameters` lists the request fields it can
 * honour; the call is refused with any other (400 `unsupported_parameter`, naming it) unless the config
 * sets `drop_params`, so a parameter is never silently lost.
 */
export interface ChatBackend {
  readonly parameters: ReadonlySet<string>;
  /**
   * The native call for an OpenAI chat request whose fields are all in `parameters`. The call
   * passes `upstream` for what a call needs first (Vertex AI's access token from a token endpoint).
   */
  request(chat: Json, call: ProviderCall, upstream?: UpstreamClient): Promise<NativeCall>;
  /** A 2xx native answer as an OpenAI chat completion; the call is passed for its `facts`. */
  response(body: Json, chat: Json, call?: ProviderCall): Json;
  /** A 2xx native stream as OpenAI chat completion chunks; the last one carries `usage`. */
  stream(source: AsyncIterable<Buffer>, chat: Json, call?: ProviderCall): AsyncIterable<Json>;
  /** A non-2xx native answer. */
  error(status: number, text: string, headers: IncomingHttpHeaders): NativeError;
}

/** A provider's embeddings, reached from the OpenAI embeddings form. */
export interface EmbeddingsBackend {
  readonly parameters: ReadonlySet<string>;
  /** The most inputs one native call takes for this request's model, when limited; longer lists are sent in parts. */
  batchSize?(embeddings: Json): number | undefined;
  request(embeddings: Json, call: ProviderCall, upstream?: UpstreamClient): Promise<NativeCall>;
  /** A 2xx native answer as an OpenAI embeddings list; some providers count tokens in a header only. */
  response(body: Json, embeddings: Json, headers: IncomingHttpHeaders): Json;
  error(status: number, text: string, headers: IncomingHttpHeaders): NativeError;
}

/** What guardgate knows of one provider kind, by its catalog name. */
export interface ProviderKind {
  /** The format it speaks natively, when it is one guardgate serves; none for Bedrock or Gemini. */
  readonly format?: FormatName;
  /** Other formats it serves natively, passed through like its own (OpenAI's and Azure's Responses API). */
  readonly alsoServes?: readonly FormatName[];
  /** Base URL with the version segment; none where the options build it (Azure, Bedrock, Vertex) or for local servers. */
  readonly baseUrl?: string;
  /** Where a passthrough call goes, when not `baseUrl + upstreamPath` with the provider's headers. */
  passthrough?(call: ProviderCall): Promise<PassthroughTarget>;
  /**
   * The provider's answer as the gateway (or, for a translated call, the backend) is to read it:
   * the kind may put headers in their usual form (Azure's `retry-after-ms`) and note facts for the
   * log (`call.facts`) as the body goes by, without changing a byte of it.
   */
  answered?(response: UpstreamResponse, call: ProviderCall): UpstreamResponse;
  /** Chat for clients of another format, or for every client when the kind has no format of guardgate's. */
  readonly chat?: ChatBackend;
  /** Embeddings for OpenAI clients, for kinds without an OpenAI passthrough. */
  readonly embeddings?: EmbeddingsBackend;
  /**
   * JSON Schema of the kind's options: the settings of a provider record or a config target
   * (`aws_region`, `api_version`, …), named as the peer gateway's config names them.
   */
  readonly optionsSchema?: Json;
  /** Options holding secrets: never logged or returned, scrubbed from what the upstream sends back. */
  readonly secretOptions?: readonly string[];
}
