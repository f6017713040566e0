/**
 * The MCP gateway: which way one HTTP request to `/v1/mcp/{server}` goes. A request naming the
 * 2026-07-28 revision stands alone (stateless.ts); an `initialize` opens a session, and a request
 * with `Mcp-Session-Id` goes to its session (sessions.ts), whose transport answers POST, GET and
 * DELETE. What cannot be served is refused here with a JSON-RPC error and a 4xx that says why,
 * before anything went upstream.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressPolicy } from "../../core/internal.js";
import { REQUEST_ID_HEADER } from "../logs/process-log.js";
import type { ApiKeyIdentity, McpServerRecord, McpServerSource } from "../sources/types.js";
import { type McpInterceptor, passThrough } from "./intercept.js";
import {
  errorResponse,
  isRequest,
  McpMessageError,
  parseBody,
  RPC,
  type RpcMessage,
  type RpcRequest,
  SESSION_VERSIONS,
  STATELESS_VERSIONS,
} from "./jsonrpc.js";
import { DEFAULT_SESSION_LIMITS, McpSessions, type SessionLimits } from "./sessions.js";
import { META, serveStateless } from "./stateless.js";
import type { Backoff, SupervisorLog } from "./stdio-process.js";
import { UpstreamFetch } from "./upstream-fetch.js";
import { McpUpstreams } from "./upstreams.js";

/** Options of the MCP gateway. */
export interface McpGatewayOptions {
  servers: McpServerSource;
  /** Stdio servers to start: the config file's only. */
  stdioServers?: Iterable<McpServerRecord>;
  interceptor?: McpInterceptor;
  /** What servers a workspace admin registered may reach (the custom-host policy). */
  customHosts: AddressPolicy;
  /** Largest answer of a server, and largest event of its streams; default 32 MiB. */
  maxMessageBytes?: number;
  sessions?: Partial<SessionLimits>;
  backoff?: Backoff;
  log: SupervisorLog;
}

/** One HTTP request, as the route hands it over. */
export interface McpHttpRequest {
  method: "GET" | "POST" | "DELETE";
  server: McpServerRecord;
  identity: ApiKeyIdentity;
  requestId: string;
  /** The body's text (POST). */
  body?: string;
  req: IncomingMessage;
  res: ServerResponse;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

/** Writes a refusal as a JSON-RPC error; the gateway's code rides in `error.data.code`. */
export function writeRefusal(
  res: ServerResponse,
  error: McpMessageError,
  id: string | number | null = null,
  extraHeaders: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .writeHead(error.status, { "content-type": "application/json", ...extraHeaders })
    .end(
      JSON.stringify(
        errorResponse(id, { code: error.rpcCode, message: error.message, data: { code: error.gatewayCode, ...error.data } }),
      ),
    );
}

/** Every revision the gateway speaks, newest first. */
export const SUPPORTED_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...SESSION_VERSIONS];

/** RPCs the 2026-07-28 revision removed. */
const REMOVED_IN_STATELESS = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

/**
 * What a stateless request must carry: the header naming its revision, and the `_meta` fields that
 * replaced initialize, the header and `_meta` agreeing; an RPC the revision removed is not found.
 */
function checkStatelessRequest(message: RpcRequest, header: string | undefined, version: string): void {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  if (header === undefined) {
    throw new McpMessageError(RPC.transport, `MCP-Protocol-Version: the header is required with revision ${version}`);
  }
  const missing = [META.protocolVersion, META.clientInfo, META.clientCapabilities].filter((key) => meta?.[key] === undefined);
  if (missing.length) {
    throw new McpMessageError(
      RPC.invalidParams,
      `params._meta: revision ${version} needs ${missing.join(", ")} on every request`,
    );
  }
  if (meta?.[META.protocolVersion] !== header) {
    throw new McpMessageError(
      RPC.transport,
      `MCP-Protocol-Version: ${header} differs from params._meta["${META.protocolVersion}"]; they must agree`,
    );
  }
  if (REMOVED_IN_STATELESS.has(message.method)) {
    throw new McpMessageError(
      RPC.methodNotFound,
      `${message.method}: revision ${version} has no such method`,
      "mcp_method_not_found",
    );
  }
}

/** The MCP gateway of one app. */
export class McpGateway {
  readonly servers: McpServerSource;
  readonly upstreams: McpUpstreams;
  readonly sessions: McpSessions;
  readonly interceptor: McpInterceptor;

  constructor(options: McpGatewayOptions) {
    this.servers = options.servers;
    this.interceptor = options.interceptor ?? passThrough;
    const fetch = new UpstreamFetch(options.customHosts, { maxMessageBytes: options.maxMessageBytes ?? 32 * 1024 * 1024 });
    this.upstreams = new McpUpstreams(fetch, options.log, options.backoff);
    this.upstreams.startStdio(options.stdioServers ?? []);
    this.sessions = new McpSessions(this.upstreams, this.interceptor, { ...DEFAULT_SESSION_LIMITS, ...options.sessions });
  }

  /** The server a key's workspace may reach by this name. */
  async server(name: string, identity: ApiKeyIdentity): Promise<McpServerRecord | undefined> {
    return this.servers.get(name, { workspaceId: identity.workspaceId });
  }

  /** Serves one HTTP request; every refusal is written as a JSON-RPC error. */
  async handle(http: McpHttpRequest): Promise<void> {
    const { req, res } = http;
    // What the bridge reports as the call's request id: the gateway's, never one a client sent.
    for (let i = req.rawHeaders.length - 2; i >= 0; i -= 2) {
      if (req.rawHeaders[i]?.toLowerCase() === REQUEST_ID_HEADER) req.rawHeaders.splice(i, 2);
    }
    req.rawHeaders.push(REQUEST_ID_HEADER, http.requestId);
    let id: string | number | null = null;
    try {
      const version = header(req, "mcp-protocol-version");
      const sessionId = header(req, "mcp-session-id");
      let parsed: { messages: RpcMessage[]; value: unknown } | undefined;
      if (http.method === "POST") {
        const { messages } = parseBody(http.body ?? "");
        parsed = { messages, value: JSON.parse(http.body ?? "") };
        const first = messages[0];
        if (messages.length === 1 && first && isRequest(first)) id = first.id;
      }
      const metaVersion =
        parsed?.messages.length === 1
          ? (parsed.messages[0] as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[META.protocolVersion]
          : undefined;
      const stateless = version ?? (typeof metaVersion === "string" ? metaVersion : undefined) ?? "";
      if (STATELESS_VERSIONS.includes(stateless))
        return await this.#stateless(http, version, stateless, sessionId, parsed?.messages);
      if (version !== undefined && !SESSION_VERSIONS.includes(version)) {
        throw new McpMessageError(
          RPC.transport,
          `MCP-Protocol-Version: ${version} is not a revision this gateway speaks; it speaks ${SUPPORTED_VERSIONS.join(", ")}`,
          "mcp_unsupported_version",
          undefined,
          { supportedVersions: SUPPORTED_VERSIONS },
        );
      }
      if (sessionId !== undefined) {
        const session = this.sessions.find(sessionId, http.server, http.identity);
        if (!session) {
          throw new McpMessageError(
            RPC.sessionNotFound,
            `Mcp-Session-Id: no open session of this server has this id; send initialize to open one`,
            "mcp_session_not_found",
          );
        }
        return await session.handle(req, res, parsed?.value);
      }
      if (http.method !== "POST") {
        throw new McpMessageError(
          RPC.transport,
          `${http.method} needs the Mcp-Session-Id of a session; open one with an initialize request (revision 2026-07-28 has no sessions and no GET stream)`,
          http.method === "GET" ? "mcp_method_not_allowed" : "mcp_session_required",
        );
      }
      const messages = parsed?.messages ?? [];
      if (!(messages.length === 1 && messages[0] && isRequest(messages[0]) && messages[0].method === "initialize")) {
        throw new McpMessageError(
          RPC.transport,
          "Mcp-Session-Id: the header is required; send initialize first to open a session, or name revision 2026-07-28 in MCP-Protocol-Version for a request without one",
          "mcp_session_required",
        );
      }
      await this.sessions.open(http.server, http.identity, req, res, parsed?.value);
    } catch (error) {
      if (!(error instanceof McpMessageError)) throw error;
      writeRefusal(res, error, id, error.status === 405 ? { allow: "POST" } : {});
    }
  }

  async #stateless(
    http: McpHttpRequest,
    versionHeader: string | undefined,
    version: string,
    sessionId: string | undefined,
    messages: RpcMessage[] | undefined,
  ): Promise<void> {
    if (http.method !== "POST") {
      throw new McpMessageError(
        RPC.transport,
        `revision ${version} has no GET stream and no sessions to DELETE; send each request as a POST`,
        "mcp_method_not_allowed",
      );
    }
    if (sessionId !== undefined) {
      throw new McpMessageError(
        RPC.transport,
        `Mcp-Session-Id: revision ${version} has no sessions; send the request without the header`,
        "mcp_invalid_message",
      );
    }
    const message = messages?.length === 1 ? messages[0] : undefined;
    if (!message)
      throw new McpMessageError(RPC.invalidRequest, `revision ${version} takes one JSON-RPC message per request, not a batch`);
    if (!isRequest(message)) {
      // Notifications and responses of a stateless client have no session to belong to.
      http.res.writeHead(202).end();
      return;
    }
    checkStatelessRequest(message, versionHeader, version);
    const accept = header(http.req, "accept") ?? "";
    if (!/application\/json|\*\/\*/.test(accept)) {
      throw new McpMessageError(
        RPC.transport,
        "Accept: the answer is application/json (text/event-stream when progress is asked for); accept it",
        "mcp_not_acceptable",
      );
    }
    await serveStateless(
      { ...this, supportedVersions: SUPPORTED_VERSIONS },
      http.server,
      http.identity,
      version,
      message,
      http.requestId,
      accept,
      http.res,
    );
  }

  /** Closes every session, ending their streams. */
  async closeSessions(): Promise<void> {
    await this.sessions.closeAll();
  }

  /** Closes every session and stops every stdio process. */
  async close(): Promise<void> {
    await this.sessions.closeAll();
    await this.upstreams.close();
  }
}
