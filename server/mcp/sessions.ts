/**
 * Client sessions of the revisions that have them (`initialize`, then `Mcp-Session-Id`): each is
 * the SDK's Streamable HTTP server transport, which answers in JSON or SSE, holds the GET stream,
 * takes DELETE and replays a lost stream from `Last-Event-ID` (event-store.ts), joined by a
 * bridge to its own upstream end. A session belongs to the server and the API key that opened
 * it; another key naming its id finds nothing. Sessions idle too long are closed, and their
 * number is bounded.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { ApiKeyIdentity, McpServerRecord } from "../sources/types.js";
import { McpBridge } from "./bridge.js";
import { DEFAULT_EVENT_LIMITS, type EventStoreLimits, SessionEventStore } from "./event-store.js";
import type { McpInterceptor } from "./intercept.js";
import { McpMessageError } from "./jsonrpc.js";
import { hasSecrets, scrubberFor } from "./upstream-fetch.js";
import type { McpUpstreams } from "./upstreams.js";

/** Bounds of the session table. */
export interface SessionLimits {
  /** Open sessions across the gateway. */
  maxSessions: number;
  /** A session with no request for this long is closed. */
  idleMs: number;
  events: EventStoreLimits;
}

/** Defaults: 1,000 sessions, closed after 30 idle minutes. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 1000, idleMs: 30 * 60_000, events: DEFAULT_EVENT_LIMITS };

interface Session {
  serverKey: string;
  keyId: string;
  transport: StreamableHTTPServerTransport;
  bridge: McpBridge;
  lastSeen: number;
}

function serverKey(server: McpServerRecord): string {
  return `${server.workspaceId ?? ""}\u0000${server.name}`;
}

/** The open sessions. */
export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  /** Sessions being opened: counted against the limit before they have an id. */
  #opening = 0;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    readonly upstreams: McpUpstreams,
    readonly interceptor: McpInterceptor,
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(60_000, limits.idleMs)).unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session of this id, server and key; undefined when there is none for them. */
  find(
    id: string,
    server: McpServerRecord,
    identity: ApiKeyIdentity,
  ): { handle(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> } | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.serverKey !== serverKey(server) || session.keyId !== identity.id) return undefined;
    session.lastSeen = Date.now();
    return { handle: (req, res, body) => session.transport.handleRequest(req, res, body) };
  }

  /**
   * Opens a session for an `initialize` request and hands the request to it. Throws an
   * McpMessageError (answered before anything was written) when no session can be opened.
   */
  async open(
    server: McpServerRecord,
    identity: ApiKeyIdentity,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
  ): Promise<void> {
    if (this.#sessions.size + this.#opening >= this.limits.maxSessions) {
      throw new McpMessageError(
        -32000,
        `the gateway holds ${this.limits.maxSessions} MCP sessions already; close one with DELETE or try again later`,
        "mcp_too_many_sessions",
      );
    }
    this.#opening++;
    let opened = false;
    try {
      let upstream;
      try {
        upstream = this.upstreams.open(server);
      } catch (error) {
        throw new McpMessageError(-32002, (error as Error).message, "mcp_upstream_failed");
      }
      let sessionId: string | undefined;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: server.answers === "json",
        eventStore: new SessionEventStore(this.limits.events),
        onsessioninitialized: (id) => {
          sessionId = id;
          opened = true;
          this.#sessions.set(id, { serverKey: serverKey(server), keyId: identity.id, transport, bridge, lastSeen: Date.now() });
        },
        onsessionclosed: (id) => {
          this.#sessions.delete(id);
        },
      });
      const bridge = new McpBridge(
        {
          server,
          identity,
          interceptor: this.interceptor,
          scrub: scrubberFor(server),
          hasSecrets: hasSecrets(server),
          sessionId: () => sessionId,
          onClose: () => {
            if (sessionId !== undefined) this.#sessions.delete(sessionId);
          },
        },
        transport,
        upstream,
      );
      try {
        await bridge.start();
      } catch (error) {
        await bridge.close();
        const why = scrubberFor(server)((error as Error).message);
        throw new McpMessageError(-32002, `the MCP server "${server.name}" could not be reached: ${why}`, "mcp_upstream_failed");
      }
      await transport.handleRequest(req, res, body);
      if (!opened) await bridge.close();
    } finally {
      this.#opening--;
    }
  }

  /** Closes every session (the gateway is stopping). */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.bridge.close()));
  }

  #closeIdle(): void {
    const oldest = Date.now() - this.limits.idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastSeen >= oldest) continue;
      this.#sessions.delete(id);
      void session.bridge.close();
    }
  }
}
