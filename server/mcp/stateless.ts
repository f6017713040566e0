/**
 * A request of the 2026-07-28 revision, which has no protocol-level sessions and no GET stream:
 * each POST carries one request, its protocol version in `MCP-Protocol-Version`, and its
 * capabilities in `_meta`. The gateway opens an upstream session for it (initializing the server
 * itself in the newest revision with sessions), passes the request through the same bridge and
 * interceptor as a session's, answers in one JSON body, or in a request-scoped SSE stream when the
 * request asked for progress, and ends the upstream session. A client that goes away cancels the
 * request upstream.
 */
import type { ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { REQUEST_ID_HEADER } from "../logs/process-log.js";
import type { ApiKeyIdentity, McpServerRecord } from "../sources/types.js";
import { McpBridge } from "./bridge.js";
import type { McpInterceptor } from "./intercept.js";
import { McpMessageError, progressTokenOf, resultResponse, RPC, type RpcRequest } from "./jsonrpc.js";
import { hasSecrets, scrubberFor } from "./upstream-fetch.js";
import { initializeUpstream } from "./upstream-init.js";
import type { McpUpstreams } from "./upstreams.js";

/** `_meta` keys of the 2026-07-28 revision that carry what `initialize` used to. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
} as const;

function objectAt(meta: unknown, key: string): Record<string, unknown> | undefined {
  const value = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[key] : undefined;
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The client side of one stateless request: writes its answer, and its progress when streamed. */
class OneRequest implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #done = false;
  #streaming = false;
  readonly answered: Promise<void>;
  #resolve!: () => void;

  constructor(
    readonly request: RpcRequest,
    readonly res: ServerResponse,
    readonly stream: boolean,
  ) {
    this.answered = new Promise((resolve) => (this.#resolve = resolve));
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#done) return;
    const isAnswer = !("method" in message) && "id" in message && message.id === this.request.id;
    if (!isAnswer) {
      // Only what belongs to this request has a way to the client: progress on its stream.
      if (this.stream && options?.relatedRequestId === this.request.id) this.#event(message);
      return;
    }
    this.#done = true;
    if (this.#streaming) {
      this.#event(message);
      this.res.end();
    } else {
      this.res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
    }
    this.#resolve();
  }

  #event(message: JSONRPCMessage): void {
    if (!this.#streaming) {
      this.#streaming = true;
      this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform" });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** The client left before the answer. */
  get abandoned(): boolean {
    return !this.#done;
  }

  async close(): Promise<void> {
    this.#resolve();
    this.onclose?.();
  }
}

/** Serves one stateless request over a fresh upstream session. */
export async function serveStateless(
  deps: { upstreams: McpUpstreams; interceptor: McpInterceptor; supportedVersions: readonly string[] },
  server: McpServerRecord,
  identity: ApiKeyIdentity,
  version: string,
  request: RpcRequest,
  requestId: string,
  accept: string,
  res: ServerResponse,
): Promise<void> {
  const meta = request.params?._meta;
  const stream = progressTokenOf(request.params) !== undefined && accept.includes("text/event-stream");
  const scrub = scrubberFor(server);
  let upstream;
  try {
    upstream = deps.upstreams.open(server);
  } catch (error) {
    throw new McpMessageError(RPC.upstream, (error as Error).message, "mcp_upstream_failed");
  }
  let initialized;
  try {
    initialized = await initializeUpstream(upstream.transport, {
      ...(objectAt(meta, META.clientCapabilities) && { capabilities: objectAt(meta, META.clientCapabilities) }),
      ...(objectAt(meta, META.clientInfo) && { clientInfo: objectAt(meta, META.clientInfo) }),
    });
  } catch (error) {
    await upstream.terminate().catch(() => undefined);
    throw new McpMessageError(
      RPC.upstream,
      `the MCP server "${server.name}" could not be reached: ${scrub((error as Error).message)}`,
      "mcp_upstream_failed",
    );
  }
  if (request.method === "server/discover") {
    // Answered by the gateway: the revisions are its own, the capabilities and identity the server's.
    await upstream.terminate().catch(() => undefined);
    const result = {
      supportedVersions: deps.supportedVersions,
      capabilities: initialized.capabilities ?? {},
      serverInfo: initialized.serverInfo ?? {},
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(resultResponse(request.id, result)));
    return;
  }
  const client = new OneRequest(request, res, stream);
  const bridge = new McpBridge(
    {
      server,
      identity,
      interceptor: deps.interceptor,
      scrub,
      hasSecrets: hasSecrets(server),
      sessionId: () => undefined,
      protocolVersion: version,
    },
    client,
    upstream,
  );
  await bridge.start(true);
  const left = () => {
    if (!client.abandoned) return;
    client.onmessage?.({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: request.id, reason: "the client went away" },
    });
    void bridge.close();
  };
  res.once("close", left);
  client.onmessage?.(request as unknown as JSONRPCMessage, { requestInfo: { headers: { [REQUEST_ID_HEADER]: requestId } } });
  await client.answered;
  res.off("close", left);
  await bridge.close();
}
