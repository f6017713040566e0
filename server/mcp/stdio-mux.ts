/**
 * Every client session of a stdio server shares its one process: each session gets a channel (an
 * SDK Transport) whose request ids and progress tokens are renumbered on the way in and restored on
 * the way out, so answers and progress reach the session that asked. A channel's `initialize` is
 * answered from the process's own (the gateway initialized it), in the revision the client asked
 * for when the gateway speaks it. Notifications the process sends unasked (list changes, log
 * messages) go to every channel; its requests are answered by the gateway: `ping` with a result,
 * others (sampling, roots, elicitation need one client) with an error naming why.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerRecord } from "../sources/types.js";
import {
  isNotification,
  isRequest,
  isResponse,
  progressTokenOf,
  RPC,
  type RpcNotification,
  SESSION_VERSIONS,
} from "./jsonrpc.js";
import { type Backoff, DEFAULT_BACKOFF, StdioProcess, type SupervisorLog } from "./stdio-process.js";

type Id = string | number;

interface Outstanding {
  channel: StdioChannel;
  id: Id;
  token?: string | number;
  upstreamToken?: number;
}

/** One supervised stdio server and the channels of its sessions. */
export class StdioMux {
  readonly process: StdioProcess;
  readonly #channels = new Set<StdioChannel>();
  /** By the id the process saw. */
  readonly #outstanding = new Map<number, Outstanding>();
  /** The id the process saw, by channel and the channel's id. */
  readonly #byChannelId = new Map<StdioChannel, Map<Id, number>>();
  readonly #byToken = new Map<number, Outstanding>();
  #next = 0;

  constructor(server: McpServerRecord, log: SupervisorLog, backoff: Backoff = DEFAULT_BACKOFF) {
    this.process = new StdioProcess(server, { message: (m) => this.#fromProcess(m), exited: () => this.#lost() }, log, backoff);
  }

  /** A new channel, for one session or one stateless request. */
  channel(): Transport {
    const channel = new StdioChannel(this);
    this.#channels.add(channel);
    this.#byChannelId.set(channel, new Map());
    return channel;
  }

  /** Called by a channel: a message from its client. */
  async fromChannel(channel: StdioChannel, message: JSONRPCMessage): Promise<void> {
    if (isRequest(message)) {
      if (message.method === "initialize") return this.#initialize(channel, message.id, message.params);
      const upstreamId = ++this.#next;
      const token = progressTokenOf(message.params);
      const entry: Outstanding = { channel, id: message.id, ...(token !== undefined && { token, upstreamToken: upstreamId }) };
      this.#outstanding.set(upstreamId, entry);
      this.#byChannelId.get(channel)?.set(message.id, upstreamId);
      let params = message.params;
      if (token !== undefined) {
        this.#byToken.set(upstreamId, entry);
        params = { ...params, _meta: { ...(params?._meta as object), progressToken: upstreamId } };
      }
      try {
        await this.process.send({ ...message, id: upstreamId, ...(params && { params }) } as JSONRPCMessage);
      } catch (error) {
        this.#forget(upstreamId);
        channel.deliver({ jsonrpc: "2.0", id: message.id, error: { code: RPC.upstream, message: (error as Error).message } });
      }
      return;
    }
    if (isNotification(message)) {
      if (message.method !== "notifications/cancelled") return; // initialized, roots changes: the gateway's own session holds
      const requestId = message.params?.requestId as Id | undefined;
      const upstreamId = requestId === undefined ? undefined : this.#byChannelId.get(channel)?.get(requestId);
      if (upstreamId === undefined) return;
      this.#forget(upstreamId);
      await this.process
        .send({ ...message, params: { ...message.params, requestId: upstreamId } } as JSONRPCMessage)
        .catch(() => undefined);
    }
    // A response of the client: the gateway forwards no server requests, so none is awaited.
  }

  /** Called by a channel closing: its requests in flight are cancelled at the process. */
  closed(channel: StdioChannel): void {
    for (const upstreamId of this.#byChannelId.get(channel)?.values() ?? []) {
      this.#forget(upstreamId);
      this.process
        .send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: upstreamId, reason: "the client left" } })
        .catch(() => undefined);
    }
    this.#byChannelId.delete(channel);
    this.#channels.delete(channel);
  }

  /** Stops the process; every channel closes. */
  async stop(): Promise<void> {
    for (const channel of [...this.#channels]) void channel.close();
    await this.process.stop();
  }

  async #initialize(channel: StdioChannel, id: Id, params: Record<string, unknown> | undefined): Promise<void> {
    try {
      const server = await this.process.ready();
      const asked = typeof params?.protocolVersion === "string" ? params.protocolVersion : undefined;
      const protocolVersion = asked !== undefined && SESSION_VERSIONS.includes(asked) ? asked : server.protocolVersion;
      channel.deliver({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion,
          capabilities: server.capabilities,
          serverInfo: server.serverInfo,
          ...(server.instructions !== undefined && { instructions: server.instructions }),
        },
      } as JSONRPCMessage);
    } catch (error) {
      channel.deliver({ jsonrpc: "2.0", id, error: { code: RPC.upstream, message: (error as Error).message } });
    }
  }

  #forget(upstreamId: number): void {
    const entry = this.#outstanding.get(upstreamId);
    if (!entry) return;
    this.#outstanding.delete(upstreamId);
    this.#byToken.delete(upstreamId);
    this.#byChannelId.get(entry.channel)?.delete(entry.id);
  }

  #fromProcess(message: JSONRPCMessage): void {
    if (isResponse(message)) {
      const upstreamId = typeof message.id === "number" ? message.id : Number.NaN;
      const entry = this.#outstanding.get(upstreamId);
      if (!entry) return; // cancelled, or its channel left
      this.#forget(upstreamId);
      entry.channel.deliver({ ...message, id: entry.id } as JSONRPCMessage);
      return;
    }
    if (isRequest(message)) {
      const answer =
        message.method === "ping"
          ? { jsonrpc: "2.0" as const, id: message.id, result: {} }
          : {
              jsonrpc: "2.0" as const,
              id: message.id,
              error: {
                code: RPC.methodNotFound,
                message: `${message.method}: the gateway shares this stdio server between clients and relays no requests of the server to them`,
              },
            };
      this.process.send(answer as JSONRPCMessage).catch(() => undefined);
      return;
    }
    const note = message as RpcNotification;
    if (note.method === "notifications/progress") {
      const token = note.params?.progressToken;
      const entry = typeof token === "number" ? this.#byToken.get(token) : undefined;
      if (entry?.token !== undefined) {
        entry.channel.deliver({ ...note, params: { ...note.params, progressToken: entry.token } } as JSONRPCMessage);
      }
      return;
    }
    if (note.method === "notifications/cancelled") return; // it cancels a request of its own, which was answered already
    for (const channel of this.#channels) channel.deliver(message);
  }

  /** The process exited: what it had in flight fails, naming why. */
  #lost(): void {
    const name = this.process.server.name;
    for (const [upstreamId, entry] of [...this.#outstanding]) {
      this.#forget(upstreamId);
      entry.channel.deliver({
        jsonrpc: "2.0",
        id: entry.id,
        error: { code: RPC.upstream, message: `the stdio MCP server "${name}" exited before it answered; it is being restarted` },
      });
    }
  }
}

/** One session's view of a shared stdio process. */
class StdioChannel implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #closed = false;

  constructor(readonly mux: StdioMux) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("the channel is closed");
    await this.mux.fromChannel(this, message);
  }

  /** A message for this channel's client. */
  deliver(message: JSONRPCMessage): void {
    if (!this.#closed) this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.mux.closed(this);
    this.onclose?.();
  }
}
