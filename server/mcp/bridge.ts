/**
 * One client session joined to its upstream end: the client's messages go up, the server's come
 * down, and every request and its result pass the interceptor on the way (intercept.ts). The
 * bridge knows JSON-RPC, not HTTP: the client side is any SDK Transport (the Streamable HTTP
 * server transport of a session, or the one request of a stateless call), so it moves onto
 * another route unchanged.
 *
 * Progress is routed back by its token to the request that asked for it; other messages the server
 * sends unasked go on the session's GET stream. A client's cancellation aborts the call's signal
 * and is forwarded; a late answer to a cancelled request is dropped. What reaches the client of an
 * upstream failure is a JSON-RPC error with the server's credentials cut out.
 */
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { REQUEST_ID_HEADER } from "../logs/process-log.js";
import type { ApiKeyIdentity, McpServerRecord } from "../sources/types.js";
import type { McpCall, McpCallOutcome, McpInterceptor, McpRpcError } from "./intercept.js";
import { isNotification, isRequest, progressTokenOf, RPC, SESSION_VERSIONS } from "./jsonrpc.js";
import { isTooLarge } from "./upstream-fetch.js";
import type { UpstreamEnd } from "./upstreams.js";

type Id = string | number;

/** What a bridge is for. */
export interface BridgeOptions {
  server: McpServerRecord;
  identity: ApiKeyIdentity;
  interceptor: McpInterceptor;
  /** Cuts the server's credentials out of a text headed for the client. */
  scrub(text: string): string;
  /** Whether the server has credentials to cut (else messages pass unserialized). */
  hasSecrets?: boolean;
  /** The session's id, once the client side has one. */
  sessionId(): string | undefined;
  /** The revision the client speaks, when known before `initialize` (a stateless call's). */
  protocolVersion?: string;
  /** Called once when either side closed. */
  onClose?(): void;
}

interface Pending {
  call: McpCall;
  /** False for `ping`, which passes without the interceptor. */
  hooks: boolean;
  abort: AbortController;
  token?: string | number;
}

/** A client side and an upstream end, joined. */
export class McpBridge {
  readonly #pending = new Map<Id, Pending>();
  readonly #byToken = new Map<string | number, Id>();
  #closed = false;
  /** The revision negotiated with the client (and the server). */
  protocolVersion: string | undefined;

  constructor(
    readonly options: BridgeOptions,
    readonly client: Transport,
    readonly upstream: UpstreamEnd,
  ) {
    this.protocolVersion = options.protocolVersion;
  }

  /** Wires both sides and starts the upstream end (an HTTP+SSE server is connected here) unless it was started already. */
  async start(upstreamStarted = false): Promise<void> {
    this.client.onmessage = (message, extra) => void this.#fromClient(message, extra);
    this.client.onclose = () => void this.close();
    this.upstream.transport.onmessage = (message) => void this.#fromServer(message);
    this.upstream.transport.onclose = () => void this.close();
    // Failures of a send reach its request and a broken GET stream is retried, but a stream cut for
    // an event over the cap would be retried into the same event: the calls waiting on it fail now.
    this.upstream.transport.onerror = (error) => {
      if (!isTooLarge(error)) return;
      const message = `the MCP server "${this.options.server.name}" sent an answer larger than the gateway takes; the call failed`;
      for (const [id, pending] of [...this.#pending])
        if (pending.call.method !== "initialize") void this.#answerError(id, { code: RPC.upstream, message });
    };
    if (!upstreamStarted) await this.upstream.transport.start();
    await this.client.start();
  }

  /** Ends both sides; calls still open end as cancelled. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const [id, pending] of [...this.#pending]) void this.#finish(id, pending, { kind: "cancelled" });
    await Promise.allSettled([this.upstream.terminate(), this.client.close()]);
    this.options.onClose?.();
  }

  async #fromClient(message: JSONRPCMessage, extra?: MessageExtraInfo): Promise<void> {
    if (isRequest(message)) return this.#request(message, extra);
    if (isNotification(message) && message.method === "notifications/cancelled") {
      const id = message.params?.requestId as Id | undefined;
      const pending = id === undefined ? undefined : this.#pending.get(id);
      if (pending && id !== undefined) void this.#finish(id, pending, { kind: "cancelled" });
    }
    await this.#up(message, undefined);
  }

  async #request(
    message: JSONRPCMessage & { id: Id; method: string; params?: Record<string, unknown> },
    extra?: MessageExtraInfo,
  ): Promise<void> {
    const abort = new AbortController();
    const header = extra?.requestInfo?.headers?.[REQUEST_ID_HEADER];
    const sessionId = this.options.sessionId();
    const call: McpCall = {
      server: this.options.server,
      identity: this.options.identity,
      ...(sessionId !== undefined && { sessionId }),
      protocolVersion: this.protocolVersion ?? String(message.params?.protocolVersion ?? ""),
      requestId: typeof header === "string" ? header : "",
      method: message.method,
      params: message.params,
      signal: abort.signal,
    };
    const token = progressTokenOf(message.params);
    const hooks = message.method !== "ping";
    const pending: Pending = { call, hooks, abort, ...(token !== undefined && { token }) };
    this.#pending.set(message.id, pending);
    if (token !== undefined) this.#byToken.set(token, message.id);
    if (!hooks) return this.#up(message, message.id);
    let decision;
    try {
      decision = await this.options.interceptor.request(call);
    } catch {
      return this.#answerError(message.id, {
        code: RPC.internalError,
        message: `${message.method}: the gateway could not check this request; it was not forwarded`,
      });
    }
    if (this.#pending.get(message.id) !== pending) return; // cancelled meanwhile
    if (decision.action === "answer") return this.#answer(message.id, decision.result);
    if (decision.action === "error") return this.#answerError(message.id, decision.error);
    const params = decision.params ?? message.params;
    call.params = params;
    await this.#up({ ...message, ...(params !== undefined && { params }) } as JSONRPCMessage, message.id);
  }

  /** Sends a message upstream; a failure answers the request it carried. */
  async #up(message: JSONRPCMessage, requestId: Id | undefined): Promise<void> {
    try {
      await this.upstream.transport.send(message);
    } catch (error) {
      const status = (error as { code?: unknown }).code;
      if (requestId !== undefined) {
        void this.#answerError(requestId, {
          code: RPC.upstream,
          message: `the MCP server "${this.options.server.name}" failed: ${this.options.scrub((error as Error).message)}`,
        });
      }
      // The server forgot the session: the client's next request finds none and starts again.
      if (status === 404) await this.close();
    }
  }

  async #fromServer(received: JSONRPCMessage): Promise<void> {
    const message = this.#scrubbed(received);
    if (isRequest(message) || isNotification(message)) {
      let related: Id | undefined;
      if (isNotification(message) && message.method === "notifications/progress") {
        const token = message.params?.progressToken as string | number | undefined;
        related = token === undefined ? undefined : this.#byToken.get(token);
        if (related === undefined) return; // progress of a request that is over
      } else if (this.options.sessionId() !== undefined && this.options.server.answers !== "json" && this.#pending.size === 1) {
        // Which request a server's message belongs to does not survive the hop; with one call
        // open it rides that call's stream, which is open for sure (the GET stream may not be yet).
        related = this.#pending.keys().next().value;
      }
      await this.#down(message, related);
      return;
    }
    const id = (message as { id?: Id }).id;
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (!pending || id === undefined) return; // cancelled, or never asked
    if ("error" in message) {
      const error = message.error as McpRpcError;
      return this.#answerError(id, { ...error, message: this.options.scrub(error.message) });
    }
    let result = (message as { result: Record<string, unknown> }).result;
    if (pending.call.method === "initialize") {
      const version = String(result.protocolVersion);
      if (!SESSION_VERSIONS.includes(version)) {
        return this.#answerError(id, {
          code: RPC.upstream,
          message: `the MCP server "${this.options.server.name}" chose protocol version ${version}, which the gateway does not speak`,
        });
      }
      this.protocolVersion = version;
      pending.call.protocolVersion = version;
      this.upstream.transport.setProtocolVersion?.(version);
    }
    if (!pending.hooks) return this.#answer(id, result);
    try {
      const decision = await this.options.interceptor.result(pending.call, result);
      if (this.#pending.get(id) !== pending) return;
      if (decision.action === "error") return this.#answerError(id, decision.error);
      if (decision.action === "replace") result = decision.result;
    } catch {
      return this.#answerError(id, {
        code: RPC.internalError,
        message: `${pending.call.method}: the gateway could not check this result; it was withheld`,
      });
    }
    await this.#answer(id, result);
  }

  /** A server that quotes its credentials back (a tool echoing its headers) has them cut out. */
  #scrubbed(message: JSONRPCMessage): JSONRPCMessage {
    if (!this.options.hasSecrets) return message;
    const text = JSON.stringify(message);
    const scrubbed = this.options.scrub(text);
    return scrubbed === text ? message : (JSON.parse(scrubbed) as JSONRPCMessage);
  }

  /** Answers a request once `end` is done with it (a durable record is committed before the answer leaves). */
  async #answer(id: Id, result: Record<string, unknown>): Promise<void> {
    const pending = this.#pending.get(id);
    if (pending) await this.#finish(id, pending, { kind: "result", result });
    void this.#down({ jsonrpc: "2.0", id, result } as JSONRPCMessage, id);
  }

  async #answerError(id: Id, error: McpRpcError): Promise<void> {
    const pending = this.#pending.get(id);
    if (pending) await this.#finish(id, pending, { kind: "error", error });
    const sent = this.#down({ jsonrpc: "2.0", id, error } as JSONRPCMessage, id);
    // A session whose initialize failed has nothing to go on with.
    if (pending?.call.method === "initialize") void sent.then(() => this.close());
  }

  /** Forgets a call and tells the interceptor how it ended; resolves once `end` has. */
  async #finish(id: Id, pending: Pending, outcome: McpCallOutcome): Promise<void> {
    this.#pending.delete(id);
    if (pending.token !== undefined) this.#byToken.delete(pending.token);
    if (outcome.kind === "cancelled") pending.abort.abort();
    if (!pending.hooks) return;
    try {
      await this.options.interceptor.end?.(pending.call, outcome);
    } catch {
      // `end` cannot change the answer; a failure there is the interceptor's to report.
    }
  }

  async #down(message: JSONRPCMessage, related: Id | undefined): Promise<void> {
    const options: TransportSendOptions | undefined = related === undefined ? undefined : { relatedRequestId: related };
    await this.client.send(message, options).catch(() => undefined); // the client left: nothing to tell it
  }
}
