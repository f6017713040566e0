/**
 * Official-SDK MCP servers on real 127.0.0.1 ports for the MCP gateway's tests: Streamable HTTP
 * (SSE answers, or JSON answers) with a session per client, and the older HTTP+SSE transport.
 * Each records the Authorization headers it received, so a test can show the gateway sent the
 * server's credentials while its client never saw them.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type Seen, toolServer } from "../fixtures/mcp/tools.mjs";

/** A running test MCP server. */
export interface TestMcpServer {
  url: string;
  /** Authorization values received, one per HTTP request. */
  authorizations: string[];
  /** MCP-Protocol-Version values received after initialize. */
  versions: string[];
  seen: Seen;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

function closer(server: Server, cleanup: () => Promise<void>): () => Promise<void> {
  return async () => {
    await cleanup();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

/** A Streamable HTTP server with sessions; `json` answers requests with JSON bodies instead of SSE. */
export async function startStreamableServer(options: { json?: boolean; rejectAuth?: string } = {}): Promise<TestMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const record: Omit<TestMcpServer, "url" | "close"> = { authorizations: [], versions: [], seen: { cancelled: 0 } };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    record.authorizations.push(String(req.headers.authorization ?? ""));
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string") record.versions.push(version);
    if (options.rejectAuth && req.headers.authorization === options.rejectAuth) {
      // A server that quotes what it refused, as some do: the gateway must not pass it on.
      res.writeHead(401, { "content-type": "text/plain" }).end(`refused credentials ${req.headers.authorization}`);
      return;
    }
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === "string") {
        res.writeHead(404).end();
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: options.json ?? false,
        onsessioninitialized: (sid) => void sessions.set(sid, created),
        onsessionclosed: (sid) => void sessions.delete(sid),
      });
      transport = created;
      await toolServer("http-tools", record.seen).connect(created);
    }
    await transport.handleRequest(req, res, body);
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  const url = `${await listen(server)}/mcp`;
  return {
    url,
    ...record,
    close: closer(server, async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
    }),
  };
}

/** A server of the older HTTP+SSE transport: GET /sse opens the stream, POST /messages carries requests. */
export async function startSseServer(): Promise<TestMcpServer> {
  const transports = new Map<string, SSEServerTransport>();
  const record: Omit<TestMcpServer, "url" | "close"> = { authorizations: [], versions: [], seen: { cancelled: 0 } };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    record.authorizations.push(String(req.headers.authorization ?? ""));
    const url = new URL(req.url ?? "/", "http://x");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      transports.set(transport.sessionId, transport);
      res.on("close", () => transports.delete(transport.sessionId));
      await toolServer("sse-tools", record.seen).connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && transport) return transport.handlePostMessage(req, res, await readJson(req));
    res.writeHead(404).end();
  };
  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  const url = `${await listen(server)}/sse`;
  return {
    url,
    ...record,
    close: closer(server, async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
    }),
  };
}
