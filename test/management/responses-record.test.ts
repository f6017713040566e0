/**
 * A Responses request on a managed gateway is one request-log record with its tokens and cost, as a
 * chat request is: read from the answer's `usage` (JSON) or from `response.completed` (stream).
 */
import { afterEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { type ManagedTestGateway, startManaged } from "../support/managed.js";

interface LogRow {
  route: string;
  request_type: string | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  status: number;
}

const gateways: ManagedTestGateway[] = [];
const upstreams: FakeUpstream[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
  for (const upstream of upstreams.splice(0)) await upstream.close();
});

async function gatewayWithUpstream(): Promise<ManagedTestGateway> {
  const upstream = await new FakeUpstream().start();
  upstreams.push(upstream);
  const gateway = await startManaged({
    file: {
      providers: [{ slug: "up", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-upstream-secret-0123" }],
    },
  });
  gateways.push(gateway);
  return gateway;
}

async function responsesRows(gateway: ManagedTestGateway): Promise<LogRow[]> {
  await gateway.app.guardgate.drainLogs();
  await gateway.managed.sink.flush();
  const logs = await gateway.call("GET", "/admin/v1/logs", { key: gateway.keys.admin_key });
  expect(logs.status).toBe(200);
  return (logs.body.data as LogRow[]).filter((row) => row.route === "/v1/responses");
}

describe("a Responses request's record", () => {
  it("holds the answer's tokens and a cost, JSON and streamed", async () => {
    const gateway = await gatewayWithUpstream();
    const body = { model: "@up/gpt-4o-mini", input: "What is the capital of France?" };
    const json = await gateway.call("POST", "/v1/responses", { key: gateway.keys.api_key, body });
    expect(json.status).toBe(200);
    const streamed = await gateway.call("POST", "/v1/responses", {
      key: gateway.keys.api_key,
      body: { ...body, stream: true },
    });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain("response.completed");

    const rows = await responsesRows(gateway);
    expect(rows.map((row) => row.request_type).sort()).toEqual(["responses", "stream-responses"]);
    for (const row of rows) {
      expect(row.status).toBe(200);
      // The fake's Responses answer reports 5 input and 7 output tokens.
      expect({ input: row.input_tokens, output: row.output_tokens }).toEqual({ input: 5, output: 7 });
      expect(row.cost).toBeGreaterThan(0);
    }
  });
});
