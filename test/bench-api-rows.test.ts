/**
 * The gateway benchmark's Responses and MCP rows measure real answers: the bench's Responses
 * request passes the pack both ways, passed through and translated, and the bench's MCP server
 * answers `tools/call` directly and through a gateway serving it as the benchmark's config does,
 * with and without the standard tool pack, to concurrent calls of one session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  benchMcpServers,
  MCP_ARTICLE,
  MCP_TOOL,
  openMcpSession,
  startBenchMcpServer,
  toolsCallBodies,
} from "../bench/mcp-bench.js";
import { prompt, responsesBody } from "../bench/requests.js";
import { STANDARD_PACK } from "../bench/standard-pack.js";
import { FakeUpstream } from "./support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "./support/gateway.js";

let upstream: FakeUpstream;
let mcp: Awaited<ReturnType<typeof startBenchMcpServer>>;
let gateway: TestGateway;
const mcpUrl = () => `http://127.0.0.1:${mcp.port}/mcp`;

beforeAll(async () => {
  upstream = await new FakeUpstream({ record: false }).start();
  mcp = await startBenchMcpServer();
  gateway = await startGateway({
    file: {
      // As bench/gateway-servers.ts declares them.
      providers: [
        { slug: "upstream", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-bench" },
        { slug: "anthropic-upstream", provider: "anthropic", base_url: upstream.baseUrl, api_key: "sk-bench" },
      ],
      configs: [
        { id: "pack", config: { provider: "@upstream", ...STANDARD_PACK } },
        { id: "translated-pack", config: { provider: "@anthropic-upstream", ...STANDARD_PACK } },
      ],
      mcp_servers: benchMcpServers(mcpUrl()),
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await mcp?.close();
  await upstream?.close();
});

describe("the Responses rows", () => {
  for (const config of ["pack", "translated-pack"]) {
    it(`${config}: the request is answered with the echoed turn, both guardrails of the pack having run and passed`, async () => {
      const answer = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": API_KEY, "x-gateway-config": config },
        body: responsesBody,
      });
      expect(answer.status).toBe(200);
      const response = (await answer.json()) as {
        object: string;
        output: Array<{ content?: Array<{ text?: string }> }>;
        hook_results: Record<string, Array<{ id: string; verdict: boolean }>>;
      };
      expect(response.object).toBe("response");
      expect(response.output[0]?.content?.[0]?.text).toBe(`echo: ${prompt}`);
      const ran = (side: string) => response.hook_results[side]?.map((h) => [h.id, h.verdict]);
      expect(ran("before_request_hooks")).toEqual([["input-pack", true]]);
      expect(ran("after_request_hooks")).toEqual([["output-pack", true]]);
    });
  }
});

/** Sends `count` `tools/call` POSTs at once within a session; their answers by request id. */
async function callConcurrently(url: string, headers: Record<string, string>, count: number) {
  const next = toolsCallBodies();
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const body = next();
      const answer = await fetch(url, { method: "POST", headers, body });
      return {
        status: answer.status,
        sent: (JSON.parse(body) as { id: number }).id,
        reply: (await answer.json()) as Record<string, unknown>,
      };
    }),
  );
  return answers;
}

describe("the MCP rows", () => {
  const targets: Array<{ name: string; url: () => string; headers: Record<string, string> }> = [
    { name: "directly", url: () => mcpUrl(), headers: {} },
    { name: "through the gateway", url: () => `${gateway.url}/v1/mcp/bench`, headers: { "x-gateway-api-key": API_KEY } },
    {
      name: "with the standard tool pack",
      url: () => `${gateway.url}/v1/mcp/bench-pack`,
      headers: { "x-gateway-api-key": API_KEY },
    },
  ];
  for (const target of targets) {
    it(`${target.name}: concurrent calls of one session each get the article, under their own id`, async () => {
      const session = await openMcpSession(target.url(), target.headers);
      expect(session.headers["mcp-session-id"]).toBeTruthy();
      const answers = await callConcurrently(target.url(), session.headers, 8);
      for (const { status, sent, reply } of answers) {
        expect(status).toBe(200);
        expect(reply.id).toBe(sent);
        expect(reply.result).toEqual({ content: [{ type: "text", text: MCP_ARTICLE }] });
      }
      if (target.name !== "with the standard tool pack") return;
      // The pack's guardrails ran on both sides of the calls and let them pass.
      const record = await gateway.logs.waitFor((r) => r.route === "/v1/mcp/bench-pack" && r.request_type === "mcp:tools/call");
      const ran = (side: "before_request_hooks" | "after_request_hooks") =>
        record.hook_results?.[side]?.map((h) => [h.id, h.verdict]);
      expect(ran("before_request_hooks")).toEqual([["mcp-standard-secrets", true]]);
      expect(ran("after_request_hooks")).toEqual([["mcp-standard-injection", true]]);
    });
  }

  it("the pack's config names the tool pack the gateway knows, and the tool the calls name is listed", async () => {
    expect(benchMcpServers("http://x/mcp").map((s) => ("tool_pack" in s ? s.tool_pack : null))).toEqual([null, "standard"]);
    const session = await openMcpSession(`${gateway.url}/v1/mcp/bench-pack`, { "x-gateway-api-key": API_KEY });
    const listed = await fetch(`${gateway.url}/v1/mcp/bench-pack`, {
      method: "POST",
      headers: session.headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list" }),
    });
    const tools = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools;
    expect(tools.map((t) => t.name)).toEqual([MCP_TOOL]);
  });
});
