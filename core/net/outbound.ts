/**
 * Outbound HTTP for checks that call out (webhooks, log sinks, JWKS, URL checks): one function that
 * every such check uses, so each call has the same protections. A time limit covers the whole
 * call, the caller's AbortSignal cancels it, the answer is read up to a size cap, redirects are
 * followed only within the same origin and only when asked, and the network policy is enforced
 * on every address at connect time (core/net/lookup.ts).
 */
import { isIP } from "node:net";
import { Agent, request } from "undici";
import type { CheckSettings } from "../plugin-api.js";
import { displayUrl, OutboundError } from "./errors.js";
import { guardedLookup, type Resolver, refusedError, systemResolver } from "./lookup.js";
import { addressPermitted, type NetworkPolicy, networkPolicy, policyKey } from "./network-policy.js";

/** One outbound call. */
export interface OutboundOptions {
  method?: "GET" | "HEAD" | "POST";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Time limit of the whole call (connect, answer, body), in milliseconds. */
  timeout: number;
  signal?: AbortSignal;
  /** The answer's body may hold at most this many bytes. */
  maxResponseBytes: number;
  /** How many same-origin redirects to follow (GET and HEAD only); 0, the default, follows none. */
  maxRedirects?: number;
  /** False to skip the body (status only); it is discarded up to the size cap. */
  readBody?: boolean;
  /**
   * Receives the body chunk by chunk instead of it being held in memory (a file download); the
   * size cap still applies, and the answer's `body` is then empty.
   */
  sink?: (chunk: Uint8Array) => void | Promise<void>;
  /** The gateway's check settings: the network policy. */
  settings: CheckSettings | undefined;
  /** Resolves host names; the operating system's resolver by default. Tests inject their own. */
  resolver?: Resolver;
}

/** The answer to an outbound call. */
export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Empty when `readBody` was false. */
  body: Buffer;
  /** The URL that answered (after followed redirects). */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = "guardgate";

// One pool per resolver and policy: a connection opened under a lenient policy must never serve
// a call made under a strict one.
const agents = new WeakMap<Resolver, Map<string, Agent>>();

function agentFor(resolver: Resolver, policy: NetworkPolicy): Agent {
  let byPolicy = agents.get(resolver);
  if (!byPolicy) {
    byPolicy = new Map();
    agents.set(resolver, byPolicy);
  }
  const key = policyKey(policy);
  let agent = byPolicy.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(resolver, policy) }, keepAliveTimeout: 10_000 });
    byPolicy.set(key, agent);
  }
  return agent;
}

/** Why a URL cannot be called out to, or undefined when it can (for load-time validation). */
export function outboundUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "must be an http or https URL";
  if (parsed.username || parsed.password) return "must not carry credentials; send them in headers instead";
  if (!parsed.hostname) return "has no host";
  return undefined;
}

function checkedUrl(url: string | URL): URL {
  const problem = outboundUrlProblem(String(url));
  if (problem) throw new OutboundError("outbound_url_invalid", `${displayUrl(url)} ${problem}`);
  return new URL(String(url));
}

/** Refuses an IP-literal host at once: sockets skip the lookup for literals. */
function checkLiteralHost(url: URL, policy: NetworkPolicy): void {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !addressPermitted(host, host, policy)) {
    throw refusedError(host, [{ address: host, family: isIP(host) === 6 ? 6 : 4 }], policy.advice);
  }
}

function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

/** The OutboundError in an error's cause chain, if any (undici may wrap the socket's error). */
function findOutboundError(error: unknown): OutboundError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof OutboundError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function networkReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code ?? (error as { cause?: NodeJS.ErrnoException })?.cause?.code;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve";
    case "ECONNREFUSED":
      return "the connection was refused";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "the connection was closed before the answer was complete";
    default:
      return (error as Error)?.message || String(error);
  }
}

/** Drops a body unread; undici reports the drop as an error event, which nobody needs. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on("error", () => {});
  body.destroy();
}

async function readLimited(
  body: AsyncIterable<Uint8Array>,
  limit: number,
  where: string,
  sink?: (chunk: Uint8Array) => void | Promise<void>,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) {
      throw new OutboundError("outbound_response_too_large", `${where}: the answer exceeds the size limit of ${limit} bytes`);
    }
    if (sink) await sink(chunk);
    else chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Makes one outbound HTTP call under the network policy of `options.settings`. Resolves with any
 * HTTP status (the caller decides what a status means); rejects with an OutboundError when the
 * call cannot be made or completed: invalid URL, refused address, time-out, cancellation,
 * oversized answer, network failure.
 */
export async function outboundRequest(url: string | URL, options: OutboundOptions): Promise<OutboundResponse> {
  const method = options.method ?? "GET";
  const policy = networkPolicy(options.settings);
  const dispatcher = agentFor(options.resolver ?? systemResolver, policy);
  const timeoutSignal = AbortSignal.timeout(options.timeout);
  const signal = options.signal ? AbortSignal.any([timeoutSignal, options.signal]) : timeoutSignal;
  const headers: Record<string, string> = { "user-agent": USER_AGENT, ...options.headers };
  let target = checkedUrl(url);
  let redirectsLeft = options.maxRedirects ?? 0;
  const where = () => `${method} ${displayUrl(target)}`;

  try {
    for (;;) {
      checkLiteralHost(target, policy);
      if (signal.aborted) throw signal.reason;
      const response = await request(target, {
        method,
        headers,
        ...(options.body !== undefined && { body: options.body }),
        dispatcher,
        signal,
        headersTimeout: options.timeout,
        bodyTimeout: options.timeout,
      });
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode) && typeof location === "string" && redirectsLeft > 0 && method !== "POST") {
        const next = new URL(location, target);
        if (sameOrigin(next, target)) {
          await response.body.dump({ limit: options.maxResponseBytes });
          redirectsLeft--;
          target = next;
          continue;
        }
      }
      const declared = Number(response.headers["content-length"]);
      if (options.readBody !== false && Number.isFinite(declared) && declared > options.maxResponseBytes) {
        discard(response.body);
        throw new OutboundError(
          "outbound_response_too_large",
          `${where()}: the answer declares ${declared} bytes, over the size limit of ${options.maxResponseBytes} bytes`,
        );
      }
      let body: Buffer = Buffer.alloc(0);
      if (options.readBody === false) await response.body.dump({ limit: options.maxResponseBytes });
      else body = await readLimited(response.body, options.maxResponseBytes, where(), options.sink);
      return { status: response.statusCode, headers: response.headers, body, url: target.href };
    }
  } catch (error) {
    const known = findOutboundError(error);
    if (known) throw known;
    // A caller's signal that aborted for a time-out (AbortSignal.timeout, the runner's time
    // limit) reads as a time-out too.
    if (timeoutSignal.aborted || (options.signal?.aborted && (options.signal.reason as Error)?.name === "TimeoutError")) {
      throw new OutboundError("outbound_timeout", `${where()}: no complete answer within ${options.timeout} ms`, {
        cause: error,
      });
    }
    if (options.signal?.aborted) throw new OutboundError("outbound_aborted", `${where()}: cancelled`, { cause: error });
    throw new OutboundError("outbound_network", `${where()}: ${networkReason(error)}`, { cause: error });
  }
}

/** Closes the pooled connections of the system resolver's agents (for orderly shutdown). */
export async function closeOutboundConnections(resolver: Resolver = systemResolver): Promise<void> {
  const byPolicy = agents.get(resolver);
  if (!byPolicy) return;
  agents.delete(resolver);
  await Promise.all([...byPolicy.values()].map((agent) => agent.close()));
}
