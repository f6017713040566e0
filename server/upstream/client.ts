/**
 * Calls to upstream providers over undici: one keep-alive pool per origin (an undici Agent holds
 * them), time-outs, a response size limit, and the mapping of transport failures to 502 / 504.
 * Hosts a client chose go through a separate agent whose connections obey the custom-host policy.
 */
import type { IncomingHttpHeaders } from "node:http";
import { Agent, type Dispatcher } from "undici";
import type { AddressPolicy } from "../../core/internal.js";
import { GatewayError } from "../errors.js";
import { EventStreamFraming } from "../formats/event-stream.js";
import { SseFraming } from "../formats/sse.js";
import { ADDRESS_REFUSED, checkLiteralHost, guardedLookup } from "./guarded-lookup.js";
import { scrubberFor, sentSecrets } from "./sent-secrets.js";

/** Options of the upstream client. */
export interface UpstreamOptions {
  /** Connections per origin; default 256. */
  connections?: number;
  /** How long an idle connection is kept; default 30 s. */
  keepAliveTimeoutMs?: number;
  /** Default `request_timeout` when a config sets none; default 10 minutes. */
  timeoutMs?: number;
  /**
   * Longest wait for each complete event of a stream (`stream_event_timeout`), ms; default the
   * request's time-out. Bounds an upstream that trickles bytes without completing an event.
   */
  streamEventTimeoutMs?: number;
  /** Largest non-streamed response body read; default 32 MiB. */
  maxResponseBytes?: number;
  /** What hosts a client chose may reach; default loopback and public, never private or metadata. */
  customHosts?: AddressPolicy;
}

/** One upstream call. */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** POST unless said otherwise; a GET or DELETE sends no body. */
  method?: "POST" | "GET" | "DELETE";
  /** False when the host was chosen by a client: the custom-host policy applies. */
  trusted: boolean;
  timeoutMs?: number;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
}

/** An upstream answer whose headers have arrived; the body is read with `text()` or streamed. */
export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string;
  /** Reads the whole body (size-limited, within the time-out). */
  text(): Promise<string>;
  /**
   * The body as a stream of Buffers; each gap between chunks is bounded by the time-out, and the
   * wait for each complete event by the stream event time-out.
   */
  stream(): AsyncIterable<Buffer>;
  /** Drops the body and frees the connection. */
  discard(): void;
  /**
   * Cuts the credentials the call sent out of a text made from its answer (a translated stream's
   * error); `text()` and a textual `stream()` come with them cut already.
   */
  scrub?(text: string): string;
}

/** A binary stream (Amazon's event stream) is framed by lengths and checksums a replacement would break. */
function isTextual(contentType: string): boolean {
  return !contentType.includes("eventstream");
}

/** Default custom-host policy: local model servers yes, the private network no. */
export const DEFAULT_CUSTOM_HOSTS: AddressPolicy = { allowLoopback: true, allowPrivate: false };

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

/** Maps a transport error to the gateway error a client sees. */
export function upstreamFailure(error: unknown, url: string, timeoutMs: number): GatewayError {
  const host = safeHost(url);
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (error instanceof GatewayError) return error;
  if (code && TIMEOUT_CODES.has(code)) {
    return new GatewayError("upstream_timeout", `the upstream ${host} did not answer within ${timeoutMs} ms`);
  }
  if (code === ADDRESS_REFUSED) return new GatewayError("custom_host_refused", (e.code ? e : e.cause)?.message ?? "refused");
  const reason = code ?? e.message ?? "unknown error";
  return new GatewayError("upstream_unreachable", `the upstream ${host} could not be reached or broke off: ${reason}`, {
    cause: error,
  });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}

/** The HTTP client for provider calls. */
export class UpstreamClient {
  readonly #trusted: Agent;
  readonly #guarded: Agent;
  readonly #policy: AddressPolicy;
  readonly timeoutMs: number;
  readonly streamEventTimeoutMs: number | undefined;
  readonly maxResponseBytes: number;

  constructor(options: UpstreamOptions = {}) {
    const common = {
      connections: options.connections ?? 256,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      keepAliveMaxTimeout: Math.max(options.keepAliveTimeoutMs ?? 30_000, 60_000),
    };
    this.#policy = options.customHosts ?? DEFAULT_CUSTOM_HOSTS;
    this.#trusted = new Agent(common);
    this.#guarded = new Agent({ ...common, connect: { lookup: guardedLookup(this.#policy) } });
    this.timeoutMs = options.timeoutMs ?? 600_000;
    this.streamEventTimeoutMs = options.streamEventTimeoutMs;
    this.maxResponseBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
  }

  /**
   * Sends a POST; resolves when the response headers arrive, or rejects with a GatewayError. The
   * time-out bounds the wait for the headers and every silence while the body arrives, so a
   * stream may run long as long as it keeps moving.
   */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const url = this.#parse(request.url);
    if (!request.trusted) {
      try {
        checkLiteralHost(url.hostname, this.#policy);
      } catch (error) {
        throw new GatewayError("custom_host_refused", (error as Error).message);
      }
    }
    const dispatcher: Dispatcher = request.trusted ? this.#trusted : this.#guarded;
    let response: Dispatcher.ResponseData;
    try {
      response = await dispatcher.request({
        origin: url.origin,
        path: url.path,
        method: request.method ?? "POST",
        headers: request.headers,
        body: request.method === "GET" || request.method === "DELETE" ? null : request.body,
        ...(request.signal && { signal: request.signal }),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (error) {
      throw upstreamFailure(error, request.url, timeoutMs);
    }
    const body = response.body;
    const maxBytes = this.maxResponseBytes;
    const contentType = String(response.headers["content-type"] ?? "");
    const fail = (error: unknown) => upstreamFailure(error, request.url, timeoutMs);
    const scrubber = scrubberFor(sentSecrets(request.headers, request.url));
    const eventTimeoutMs = this.streamEventTimeoutMs ?? timeoutMs;
    const chunks = async function* (): AsyncIterable<Buffer> {
      const events = eventCounter(contentType);
      const clock = new EventClock(eventTimeoutMs, (silentMs) =>
        body.destroy(
          // A silence as long as request_timeout is that time-out's, whichever timer fired first.
          silentMs >= timeoutMs
            ? new GatewayError("upstream_timeout", `the upstream ${safeHost(request.url)} did not answer within ${timeoutMs} ms`)
            : new GatewayError(
                "upstream_stream_stalled",
                `the upstream ${safeHost(request.url)} completed no stream event within ${eventTimeoutMs} ms (stream_event_timeout)`,
              ),
        ),
      );
      try {
        clock.waiting();
        for await (const part of body) {
          clock.arrived(events(part as Buffer));
          yield part as Buffer;
          clock.waiting();
        }
      } catch (error) {
        throw fail(error);
      } finally {
        clock.stop();
        // A consumer that stopped early (the client went away) must not leave the socket busy.
        body.destroy();
      }
    };
    return {
      status: response.statusCode,
      headers: response.headers,
      contentType,
      text() {
        const declared = Number(response.headers["content-length"]);
        if (declared > maxBytes) {
          body.destroy();
          return Promise.reject(
            new GatewayError("upstream_response_too_large", `the upstream answer is larger than ${maxBytes} bytes`),
          );
        }
        // Events rather than an async iterator: this runs on every non-streamed answer.
        return new Promise<string>((resolve, reject) => {
          const parts: Buffer[] = [];
          let size = 0;
          body.on("data", (part: Buffer) => {
            size += part.length;
            if (size > maxBytes) {
              body.destroy(
                new GatewayError("upstream_response_too_large", `the upstream answer is larger than ${maxBytes} bytes`),
              );
              return;
            }
            parts.push(part);
          });
          body.once("end", () => {
            const text = (parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)).toString("utf8");
            resolve(scrubber ? scrubber.text(text) : text);
          });
          body.once("error", (error) => reject(fail(error)));
        });
      },
      stream: () => (scrubber && isTextual(contentType) ? scrubber.stream(chunks()) : chunks()),
      discard() {
        body.destroy();
      },
      ...(scrubber && { scrub: (text: string) => scrubber.text(text) }),
    };
  }

  /** Upstream URLs repeat (a provider's base URL plus one of four paths): parse each once. */
  readonly #urls = new Map<string, { origin: string; path: string; hostname: string }>();

  #parse(raw: string): { origin: string; path: string; hostname: string } {
    let parsed = this.#urls.get(raw);
    if (parsed) return parsed;
    try {
      const url = new URL(raw);
      parsed = { origin: url.origin, path: `${url.pathname}${url.search}`, hostname: url.hostname };
    } catch {
      throw new GatewayError("invalid_custom_host", `the upstream URL "${raw}" is not valid`);
    }
    // Bounded: client-chosen hosts could otherwise grow it without end.
    if (this.#urls.size >= 1000) this.#urls.clear();
    this.#urls.set(raw, parsed);
    return parsed;
  }

  async close(): Promise<void> {
    await Promise.all([this.#trusted.close(), this.#guarded.close()]);
  }
}

// How long an upstream stream takes to complete each event. `request_timeout` bounds each silence,
// so an upstream that sends a byte every few seconds and never completes an event would hold the
// stream, its connection and its client forever; this clock bounds the time between complete
// events (`stream_event_timeout`). Only time spent waiting on the upstream counts: while the
// client is slow to read, the gateway does not read either, and the upstream is not to blame.

/** Counts the events a chunk completes, in the framing of the stream's content type. */
export function eventCounter(contentType: string): (chunk: Buffer) => number {
  if (contentType.includes("application/vnd.amazon.eventstream")) {
    const framing = new EventStreamFraming();
    return (chunk) => framing.ends(chunk);
  }
  // Every other stream the gateway relays is read as server-sent events.
  const framing = new SseFraming();
  return (chunk) => framing.ends(chunk).length;
}

/**
 * Calls `onStall` once the upstream was waited on for `budgetMs` since its last complete event,
 * with the length of the current wait (a silence, which `request_timeout` may name instead).
 */
export class EventClock {
  readonly #budgetMs: number;
  readonly #onStall: (silentMs: number) => void;
  /** Waiting time since the last complete event, before the current wait. */
  #waited = 0;
  #waitingSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(budgetMs: number, onStall: (silentMs: number) => void) {
    this.#budgetMs = budgetMs;
    this.#onStall = onStall;
  }

  /** The gateway waits on the upstream for its next chunk. */
  waiting(): void {
    this.#waitingSince = performance.now();
    // One timer per stream, re-armed for what is left when it fires: nothing is allocated per chunk.
    this.#timer ??= this.#arm(this.#budgetMs - this.#waited);
  }

  /** A chunk arrived, completing `events` events. */
  arrived(events: number): void {
    if (this.#waitingSince !== undefined) this.#waited += performance.now() - this.#waitingSince;
    this.#waitingSince = undefined;
    if (events > 0) this.#waited = 0;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#check(), Math.max(ms, 1));
    timer.unref();
    return timer;
  }

  #check(): void {
    const silent = this.#waitingSince === undefined ? 0 : performance.now() - this.#waitingSince;
    const waited = this.#waited + silent;
    if (waited >= this.#budgetMs) {
      this.#timer = undefined;
      this.#onStall(silent);
      return;
    }
    this.#timer = this.#arm(this.#budgetMs - waited);
  }
}
