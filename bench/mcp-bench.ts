/**
 * The MCP rows of the gateway benchmark: an official-SDK McpServer over Streamable HTTP with JSON
 * answers on 127.0.0.1, offering one tool whose result is a support article of about 1 KB, and the
 * raw JSON-RPC POSTs a client sends it (through guardgate or directly) within one session. Raw
 * POSTs rather than the SDK client: they are what the gateway sees, and the client's own cost
 * stays out of the load generator.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** The tool every benchmark call names. */
export const MCP_TOOL = "lookup_article";

/** The article the tool answers with, about 1 KB of plain support text. */
export const MCP_ARTICLE = `${"Damaged deliveries: keep the box and the packing, take a photo of the damage and of the label. ".repeat(10)}Then open a return from your order page; a courier collects the parcel within three working days.`;

/** The call's arguments: a customer's question, checked on the tool-input side. */
const ARGUMENTS = { query: "My order arrived damaged and the box was open. What should I do next?" };

/** The config file's MCP servers of the benchmark: the same server without and with the standard tool pack. */
export function benchMcpServers(url: string) {
  return [
    { name: "bench", url, answers: "json" as const },
    { name: "bench-pack", url, answers: "json" as const, tool_pack: "standard" as const },
  ];
}

/** Starts the benchmark's MCP server: a session (and an McpServer) per client `initialize`. */
export async function startBenchMcpServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const readJson = async (req: IncomingMessage): Promise<unknown> => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString("utf8");
    return text ? JSON.parse(text) : undefined;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = req.method === "POST" ? await readJson(req) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (!transport) {
        if (typeof id === "string") return void res.writeHead(404).end();
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sid) => void sessions.set(sid, created),
          onsessionclosed: (sid) => void sessions.delete(sid),
        });
        transport = created;
        const mcp = new McpServer({ name: "bench-articles", version: "1.0.0" });
        mcp.registerTool(
          MCP_TOOL,
          {
            description: "Finds the help-centre article that answers a customer's question.",
            inputSchema: { query: z.string() },
          },
          async () => ({ content: [{ type: "text", text: MCP_ARTICLE }] }),
        );
        await mcp.connect(created);
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => res.writeHead(500).end());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The headers of every POST within a session. */
export interface McpSession {
  headers: Record<string, string>;
}

/**
 * Opens a session at `url` as a client does: `initialize`, then `notifications/initialized`, then
 * `tools/list` (which pins the tools at the gateway, as an agent's first listing does).
 */
export async function openMcpSession(url: string, extra: Record<string, string> = {}): Promise<McpSession> {
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream", ...extra };
  const post = async (headers: Record<string, string>, message: unknown) => {
    const answer = await fetch(url, { method: "POST", headers, body: JSON.stringify(message) });
    if (answer.status >= 300) throw new Error(`${url}: ${answer.status} ${await answer.text()}`);
    return answer;
  };
  const init = await post(base, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
  });
  const sessionId = init.headers.get("mcp-session-id");
  const result = ((await init.json()) as { result?: { protocolVersion?: string } }).result;
  if (!sessionId || !result?.protocolVersion) throw new Error(`${url}: initialize gave no session`);
  const headers = { ...base, "mcp-session-id": sessionId, "mcp-protocol-version": result.protocolVersion };
  await (await post(headers, { jsonrpc: "2.0", method: "notifications/initialized" })).text();
  await (await post(headers, { jsonrpc: "2.0", id: 1, method: "tools/list" })).text();
  return { headers };
}

/**
 * The bodies of a session's `tools/call` requests, each with an id of its own: concurrent requests
 * of one session are matched to their answers by id.
 */
export function toolsCallBodies(): () => string {
  let id = 1;
  return () =>
    JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: MCP_TOOL, arguments: ARGUMENTS } });
}
