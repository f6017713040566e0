/**
 * The MCP route on the wire: refusals as JSON-RPC errors with their status (never a 500), the
 * stateless 2026-07-28 path in JSON and SSE, and a lost stream resumed with Last-Event-ID.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { startStreamableServer, type TestMcpServer } from "../support/mcp-servers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
let gateway: TestGateway;
let upstream: TestMcpServer;

beforeAll(async () => {
  upstream = await startStreamableServer();
  gateway = await startGateway({
    file: {
      settings: { body_limit: 4096 },
      mcp_servers: [
        { name: "tools", url: upstream.url, workspace: "default" },
        {
          name: "local",
          command: process.execPath,
          args: [path.join(here, "../fixtures/mcp/stdio-server.mjs")],
          workspace: "default",
        },
      ],
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const ACCEPT = "application/json, text/event-stream";

function post(body: string, headers: Record<string, string> = {}, server = "tools"): Promise<Response> {
  return fetch(`${gateway.url}/v1/mcp/${server}`, {
    method: "POST",
    headers: { "x-gateway-api-key": API_KEY, "content-type": "application/json", accept: ACCEPT, ...headers },
    body,
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "wire", version: "1" } },
});

type Event = { id?: string; data?: Record<string, unknown> };

/** The SSE events of a body, read until it ends or until an event holds a response (a stream that stays open). */
async function events(response: Response): Promise<Event[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  const got: Event[] = [];
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: ?(.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1];
      got.push({ ...(id && { id }), ...(data && { data: JSON.parse(data) as Record<string, unknown> }) });
    }
    if (got.some((e) => e.data && "id" in e.data && !("method" in e.data))) {
      await reader.cancel();
      break;
    }
  }
  return got;
}

describe("refusals are JSON-RPC errors with a 4xx", () => {
  it.each([
    ["not JSON", "{nope", 400, -32700, "mcp_invalid_message", /not valid JSON/],
    ["empty", "", 400, -32700, "mcp_invalid_message", /empty/],
    ["not JSON-RPC", JSON.stringify({ hello: 1 }), 400, -32600, "mcp_invalid_message", /"jsonrpc" must be "2.0"/],
    [
      "positional params",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params: [1] }),
      400,
      -32600,
      "mcp_invalid_message",
      /params/,
    ],
    ["an empty batch", "[]", 400, -32600, "mcp_invalid_message", /batch is empty/],
    [
      "no session",
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
      400,
      -32000,
      "mcp_session_required",
      /initialize/,
    ],
    [
      "too large",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params: { a: "x".repeat(8000) } }),
      413,
      -32600,
      "body_too_large",
      /4096/,
    ],
  ])("%s", async (_name, body, status, rpcCode, code, message) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.headers.get("x-gateway-request-id")).toBeTruthy();
    const json = (await answer.json()) as { jsonrpc: string; error: { code: number; message: string; data: { code: string } } };
    expect(json).toMatchObject({ jsonrpc: "2.0", error: { code: rpcCode, data: { code } } });
    expect(json.error.message).toMatch(message);
  });

  it("a request without a key, or with a body of another type", async () => {
    const noKey = await fetch(`${gateway.url}/v1/mcp/tools`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: INITIALIZE,
    });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ error: { data: { code: "missing_api_key" } } });
    const text = await post("hi", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ jsonrpc: "2.0", error: { data: { code: "unsupported_media_type" } } });
  });

  it("an unknown revision, and GET or DELETE without a session", async () => {
    const version = await post(INITIALIZE, { "mcp-protocol-version": "2030-01-01" });
    expect(version.status).toBe(400);
    expect(await version.json()).toMatchObject({ id: 1, error: { data: { code: "mcp_unsupported_version" } } });
    const get = await fetch(`${gateway.url}/v1/mcp/tools`, {
      headers: { "x-gateway-api-key": API_KEY, accept: "text/event-stream" },
    });
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    const del = await fetch(`${gateway.url}/v1/mcp/tools`, { method: "DELETE", headers: { "x-gateway-api-key": API_KEY } });
    expect(del.status).toBe(400);
  });
});

describe("revision 2026-07-28: one request, no session", () => {
  const V = { "mcp-protocol-version": "2026-07-28" };
  const META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "stateless", version: "1" },
  };
  const request = (id: string | number, method: string, params: Record<string, unknown> = {}, meta: object = META) =>
    JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...(params._meta as object) } } });

  it.each(["tools", "local"])("answers tools/list of %s in one JSON body", async (server) => {
    const answer = await post(request("a", "tools/list"), V, server);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/application\/json/);
    expect(answer.headers.get("mcp-session-id")).toBeNull();
    const json = (await answer.json()) as { id: string; result: { tools: { name: string }[] } };
    expect(json.id).toBe("a");
    expect(json.result.tools.map((t) => t.name)).toContain("echo");
  });

  it("streams progress in a request-scoped SSE answer when the request asks for it", async () => {
    const body = request(5, "tools/call", { name: "count", arguments: { steps: 2 }, _meta: { progressToken: "p" } });
    const answer = await post(body, V);
    expect(answer.headers.get("content-type")).toMatch(/text\/event-stream/);
    const got = (await events(answer)).map((e) => e.data);
    expect(got.map((d) => d?.method ?? "result")).toEqual(["notifications/progress", "notifications/progress", "result"]);
    expect(got[0]).toMatchObject({ params: { progressToken: "p", progress: 1 } });
    expect(got[2]).toMatchObject({ id: 5, result: { content: [{ text: "counted 2" }] } });
  });

  it("answers server/discover with its revisions and the server's capabilities", async () => {
    const json = (await (await post(request(3, "server/discover"), V)).json()) as Record<string, unknown>;
    expect(json).toMatchObject({
      id: 3,
      result: { supportedVersions: expect.arrayContaining(["2026-07-28", "2025-11-25"]), serverInfo: { name: "http-tools" } },
    });
    expect(json).toHaveProperty("result.capabilities.tools");
  });

  it("refuses what the revision does not have or lacks what it needs, with the request's id", async () => {
    const refusals: [string, Record<string, string>, number, number, RegExp][] = [
      [request(1, "ping"), V, 404, -32601, /ping: revision 2026-07-28 has no such method/],
      [request(1, "initialize"), V, 404, -32601, /initialize/],
      [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }), V, 400, -32602, /clientInfo/],
      [
        request(1, "tools/list", {}, { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" }),
        V,
        400,
        -32000,
        /must agree/,
      ],
      [request(1, "tools/list"), {}, 400, -32000, /header is required/],
    ];
    for (const [body, headers, status, code, message] of refusals) {
      const answer = await post(body, headers);
      const json = (await answer.json()) as { id: number; error: { code: number; message: string } };
      expect([answer.status, json.id, json.error.code]).toEqual([status, 1, code]);
      expect(json.error.message).toMatch(message);
    }
  });

  it("has no GET stream and no session header; notifications are taken", async () => {
    const get = await fetch(`${gateway.url}/v1/mcp/tools`, { headers: { "x-gateway-api-key": API_KEY, ...V } });
    expect(get.status).toBe(405);
    const withSession = await post(request(1, "tools/list"), { ...V, "mcp-session-id": "x" });
    expect(withSession.status).toBe(400);
    const note = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }), V);
    expect(note.status).toBe(202);
  });

  it("names the revisions it speaks when asked for another", async () => {
    const answer = await post(request(1, "tools/list"), { "mcp-protocol-version": "2031-01-01" });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      error: {
        data: { code: "mcp_unsupported_version", supportedVersions: expect.arrayContaining(["2026-07-28", "2024-11-05"]) },
      },
    });
  });
});

describe("a session's stream resumed with Last-Event-ID", () => {
  it("replays what followed the last event the client saw", async () => {
    const init = await post(INITIALIZE);
    const session = init.headers.get("mcp-session-id") ?? "";
    await init.text();
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    expect((await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers)).status).toBe(202);
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "count", arguments: { steps: 3 }, _meta: { progressToken: 9 } },
    });
    const first = (await events(await post(call, headers))).filter((e) => e.data);
    expect(first.map((e) => e.data?.method ?? "result")).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "result",
    ]);
    const resumed = await fetch(`${gateway.url}/v1/mcp/tools`, {
      headers: { "x-gateway-api-key": API_KEY, accept: "text/event-stream", ...headers, "last-event-id": first[0]?.id ?? "" },
    });
    expect(resumed.status).toBe(200);
    const replayed = (await events(resumed)).filter((e) => e.data);
    expect(replayed.map((e) => e.id)).toEqual(first.slice(1).map((e) => e.id));
    expect(replayed.at(-1)?.data).toMatchObject({ id: 2, result: { content: [{ text: "counted 3" }] } });
  });
});
