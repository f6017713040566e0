import { describe, expect, it } from "vitest";
import { parseGatewayFile } from "./config-file.js";
import { sourcesFromFile } from "./from-file.js";
import { InMemoryMcpServerSource } from "./memory.js";

describe("MCP server records", () => {
  it("are scoped like providers: a workspace's own, or shared", async () => {
    const servers = new InMemoryMcpServerSource([
      { name: "docs", transport: "streamable_http", url: "http://a.example/mcp", workspaceId: "a" },
      { name: "shared", transport: "sse", url: "http://b.example/sse" },
    ]);
    expect(await servers.get("docs", { workspaceId: "b" })).toBeUndefined();
    expect((await servers.get("docs", { workspaceId: "a" }))?.url).toBe("http://a.example/mcp");
    expect(await servers.get("shared", { workspaceId: "b" })).toBeDefined();
    expect(servers.all().map((s) => s.name)).toEqual(["docs", "shared"]);
    servers.delete("docs", "a");
    expect(servers.all().map((s) => s.name)).toEqual(["shared"]);
  });

  it("come from the file's mcp_servers, the transport inferred, stdio's folder resolved", () => {
    const file = parseGatewayFile(
      JSON.stringify({
        mcp_servers: [
          { name: "remote", url: "https://tools.example/mcp", bearer_token: "tok-0123456789", workspace: "a" },
          { name: "local", command: "node", args: ["server.js"], cwd: "tools" },
        ],
      }),
      "gateway.json",
    );
    const [remote, local] = sourcesFromFile(file, "/srv/gg").mcpServers.all();
    expect(remote).toMatchObject({
      name: "remote",
      transport: "streamable_http",
      bearerToken: "tok-0123456789",
      workspaceId: "a",
    });
    expect(local).toMatchObject({ transport: "stdio", stdio: { command: "node", args: ["server.js"], cwd: "/srv/gg/tools" } });
  });

  it("refuse an entry whose fields disagree with its transport, naming it", () => {
    const load = (entry: object) => () => sourcesFromFile(parseGatewayFile(JSON.stringify({ mcp_servers: [entry] }), "g.json"));
    expect(load({ name: "x", transport: "stdio", url: "http://h/mcp" })).toThrow(
      /mcp_servers\[0\]: a stdio MCP server needs a `command`/,
    );
    expect(load({ name: "x", url: "http://h/mcp", command: "node" })).toThrow(/mcp_servers\[0\]\.url: `url` does not apply/);
    expect(load({ name: "x", transport: "sse" })).toThrow(/needs a `url`/);
    expect(load({ name: "x", url: "ftp://h" })).toThrow(/url/);
  });
});
