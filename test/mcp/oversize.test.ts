/**
 * An MCP server's answer over the gateway's cap fails that call with a JSON-RPC error naming the
 * server, in a JSON answer and in a stream alike; the session goes on.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";
import { startStreamableServer, type TestMcpServer } from "../support/mcp-servers.js";

let gateway: TestGateway;
let sse: TestMcpServer;
let json: TestMcpServer;

beforeAll(async () => {
  [sse, json] = await Promise.all([startStreamableServer(), startStreamableServer({ json: true })]);
  gateway = await startGateway({
    mcp: { maxMessageBytes: 4000 },
    file: {
      mcp_servers: [
        { name: "sse", url: sse.url },
        { name: "json", url: json.url },
      ],
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([sse?.close(), json?.close()]);
});

describe.each(["sse", "json"])("an answer over the cap from a server answering in %s", (name) => {
  it("fails the call with an error naming the server, and the session goes on", async () => {
    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/v1/mcp/${name}`), {
        requestInit: { headers: { "x-gateway-api-key": API_KEY } },
      }),
    );
    const small = await client.callTool({ name: "big", arguments: { size: 100 } });
    expect((small.content as { text: string }[])[0]?.text).toHaveLength(100);
    await expect(client.callTool({ name: "big", arguments: { size: 10_000 } })).rejects.toThrow(
      new RegExp(`MCP server "${name}" .*larger than the gateway takes`),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
