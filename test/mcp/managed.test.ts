/**
 * `guardgate serve` over a store serves the config file's MCP servers too: the records of the file
 * go to the store, its MCP servers to the app.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startManaged, type ManagedTestGateway } from "../support/managed.js";
import { startStreamableServer, type TestMcpServer } from "../support/mcp-servers.js";

let upstream: TestMcpServer;
let gateway: ManagedTestGateway;

beforeAll(async () => {
  upstream = await startStreamableServer();
  gateway = await startManaged({ file: { mcp_servers: [{ name: "tools", url: upstream.url }] } });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe("a managed gateway", () => {
  it("serves the file's MCP servers to a key of the store", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
    };
    const answer = await gateway.call("POST", "/v1/mcp/tools", {
      key: gateway.keys.api_key,
      headers: { "mcp-protocol-version": "2026-07-28", accept: "application/json", "content-type": "application/json" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.result.tools.map((t: { name: string }) => t.name)).toContain("echo");
    const noKey = await gateway.call("POST", "/v1/mcp/tools", { key: gateway.keys.admin_key, body: {} });
    expect(noKey.status).toBe(403);
  });
});
