/**
 * A stdio MCP server the gateway starts from its config file: its stderr in the gateway's log, a
 * restart after it exits (calls in flight fail with a clear error, the next ones reach the new
 * process), and no process left once the gateway stopped.
 */
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { InMemoryMcpServerSource } from "../../server/sources/memory.js";
import { API_KEY, startGateway } from "../support/gateway.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const STDIO_SERVER = path.join(here, "../fixtures/mcp/stdio-server.mjs");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe("a supervised stdio server", () => {
  it("logs its stderr, is restarted after it exits, and is stopped with the gateway", async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on("data", (chunk: Buffer) => lines.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
    const gateway = await startGateway({
      logger: { level: "info", stream },
      mcp: { backoff: { initialMs: 20, maxMs: 100, stableMs: 60_000 } },
      file: {
        mcp_servers: [{ name: "local", command: process.execPath, args: [STDIO_SERVER], env: { TOOL_MODE: "supervised" } }],
      },
    });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/v1/mcp/local`), {
        requestInit: { headers: { "x-gateway-api-key": API_KEY } },
      }),
    );
    const first = Number(textOf(await client.callTool({ name: "pid", arguments: {} })));
    expect(alive(first)).toBe(true);
    await expect.poll(() => lines.some((l) => l.includes("stdio test server up, secret env supervised"))).toBe(true);

    expect(textOf(await client.callTool({ name: "crash", arguments: {} }))).toBe("exiting");
    await expect.poll(() => lines.some((l) => l.includes("MCP stdio server exited; restarting"))).toBe(true);
    // The session goes on over the new process once it is up.
    let second = first;
    await expect
      .poll(async () => {
        second = Number(
          textOf(await client.callTool({ name: "pid", arguments: {} }).catch(() => ({ content: [{ text: "0" }] }))),
        );
        return second !== first && second !== 0;
      })
      .toBe(true);
    expect(alive(first)).toBe(false);
    await client.close();
    await gateway.close();
    await expect.poll(() => alive(second)).toBe(false);
  });

  it("is never started for a record that did not come from the config file", async () => {
    const servers = new InMemoryMcpServerSource([
      {
        name: "sneaky",
        transport: "stdio",
        stdio: { command: process.execPath, args: ["-e", "process.exit(0)"] },
        workspaceId: "default",
      },
    ]);
    const gateway = await startGateway({ mcpServers: servers });
    const answer = await fetch(`${gateway.url}/v1/mcp/sneaky`, {
      method: "POST",
      headers: {
        "x-gateway-api-key": API_KEY,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(answer.status).toBe(502);
    expect(await answer.json()).toMatchObject({
      error: { data: { code: "mcp_upstream_failed" }, message: expect.stringMatching(/only the gateway's config file/) },
    });
    await gateway.close();
  });
});
