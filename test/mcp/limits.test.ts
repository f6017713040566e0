/**
 * Rate limits on tool calls: an MCP call is admitted as a request of the key, so the key's
 * workspace rate limit counts it with model requests; the call over the limit is refused before
 * the server sees it, as a tool result with `isError: true` naming the limit (the record says 429).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";
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

/** One stateless (2026-07-28) tools/call of `echo`. */
async function echo(text: string) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "limits", version: "1" },
  };
  const answer = await gateway.call("POST", "/v1/mcp/tools", {
    key: gateway.keys.api_key,
    headers: { "mcp-protocol-version": "2026-07-28", accept: "application/json", "content-type": "application/json" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text }, _meta: meta } },
  });
  expect(answer.status).toBe(200);
  return answer.body.result as { content: { text: string }[]; isError?: boolean };
}

describe("a key's rate limit on tool calls", () => {
  it("refuses the call after N requests a minute, counting model requests and tool calls alike", async () => {
    const admin = gateway.keys.admin_key;
    const ws = gateway.keys.workspace_id;
    expect(
      (
        await gateway.call("PATCH", `/admin/v1/workspaces/${ws}`, {
          key: admin,
          body: { rate_limit: { requests_per_minute: 3 } },
        })
      ).status,
    ).toBe(200);
    expect(
      (await gateway.call("POST", "/v1/chat/completions", { key: gateway.keys.api_key, body: chat("@mock/m") })).status,
    ).toBe(200);
    expect(await echo("one")).toEqual({ content: [{ type: "text", text: "echo: one" }] });
    expect(await echo("two")).toEqual({ content: [{ type: "text", text: "echo: two" }] });
    const refused = await echo("three");
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(
      new RegExp(
        `^The gateway refused this call \\(rate_limit_exceeded\\): the rate limit of workspace ${ws} \\(3 requests per minute\\) is reached; retry after \\d+ s\\.$`,
      ),
    );
    // The model request over the limit is refused as well: one count for both.
    expect(
      (await gateway.call("POST", "/v1/chat/completions", { key: gateway.keys.api_key, body: chat("@mock/m") })).status,
    ).toBe(429);
    await gateway.managed.sink.flush();
    await expect
      .poll(async () => {
        const logs = (await gateway.call("GET", "/admin/v1/logs?status=429", { key: admin })).body.data as { route: string }[];
        return logs.map((log) => log.route).sort();
      })
      .toEqual(["/v1/chat/completions", "/v1/mcp/tools"]);
  });
});
