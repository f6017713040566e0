/**
 * The interception interface as the official client meets it: a request answered by the gateway
 * never reaches the server, rewritten params are what the server receives, a replaced result is
 * what the client gets, and a hook that throws fails the request closed.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpCall, McpCallOutcome, McpInterceptor } from "../../server/mcp/intercept.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { startStreamableServer, type TestMcpServer } from "../support/mcp-servers.js";

let gateway: TestGateway;
let upstream: TestMcpServer;
const ended: { method: string; outcome: McpCallOutcome["kind"]; sessionId?: string; requestId: string }[] = [];
const forwarded: string[] = [];

/** Refuses `wait`, rewrites `echo`'s text, hides `count` from the list, and throws on `explode`. */
const interceptor: McpInterceptor = {
  async request(call: McpCall) {
    if (call.method !== "tools/call") return { action: "forward" };
    const name = call.params?.name;
    if (name === "explode") throw new Error("a check broke");
    if (name === "wait")
      return { action: "answer", result: { content: [{ type: "text", text: "refused by test" }], isError: true } };
    forwarded.push(String(name));
    if (name === "echo") return { action: "forward", params: { ...call.params, arguments: { text: "[rewritten]" } } };
    return { action: "forward" };
  },
  async result(call, result) {
    if (call.method === "tools/list") {
      const tools = (result.tools as { name: string }[]).filter((t) => t.name !== "count");
      return { action: "replace", result: { ...result, tools } };
    }
    return { action: "pass" };
  },
  end(call, outcome) {
    ended.push({
      method: call.method,
      outcome: outcome.kind,
      requestId: call.requestId,
      ...(call.sessionId !== undefined && { sessionId: call.sessionId }),
    });
  },
};

beforeAll(async () => {
  upstream = await startStreamableServer();
  gateway = await startGateway({ mcpInterceptor: interceptor, file: { mcp_servers: [{ name: "tools", url: upstream.url }] } });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe("the interceptor", () => {
  it("filters results, answers and rewrites requests, and is told how each call ended", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/v1/mcp/tools`), {
      requestInit: { headers: { "x-gateway-api-key": API_KEY } },
    });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "wait"]));
    expect(tools.map((t) => t.name)).not.toContain("count");
    const refused = await client.callTool({ name: "wait", arguments: {} });
    expect(refused).toMatchObject({ isError: true, content: [{ text: "refused by test" }] });
    const echoed = await client.callTool({ name: "echo", arguments: { text: "secret" } });
    expect(echoed).toMatchObject({ content: [{ text: "echo: [rewritten]" }] });
    await expect(client.callTool({ name: "explode", arguments: {} })).rejects.toThrow(
      /could not check this request; it was not forwarded/,
    );
    expect(forwarded).toEqual(["echo"]);
    expect(upstream.seen.cancelled).toBe(0);
    const calls = ended.filter((e) => e.method === "tools/call");
    expect(calls.map((e) => e.outcome)).toEqual(["result", "result", "error"]);
    expect(calls.every((e) => e.sessionId === transport.sessionId && /\S/.test(e.requestId))).toBe(true);
    await client.close();
  });
});
