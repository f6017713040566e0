import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerCall } from "../../test/support/provider-call.js";
import { GatewayError } from "../errors.js";
import { UpstreamClient } from "../upstream/client.js";
import { sendCall } from "./send.js";
import { kindOf } from "./catalog.js";

const KEY = "sk-provider-secret-0123456789";
let server: http.Server;
let base: string;
const upstream = new UpstreamClient();

beforeAll(async () => {
  // An OpenAI-format provider whose stream fails with an error event quoting the caller's key.
  server = http.createServer((request, response) => {
    request.resume();
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n');
    response.end(`data: {"error":{"message":"key ${KEY} was revoked mid-stream"}}\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await upstream.close();
  await new Promise((resolve) => server.close(resolve));
});

describe("a translated stream that fails part way", () => {
  it("ends with the provider's error, its secrets scrubbed", async () => {
    const call = providerCall("/v1/messages", {
      stream: true,
      body: { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
      provider: { baseUrl: base, secret: KEY },
    });
    const answer = await sendCall(kindOf("openai"), upstream, call);
    const sent: string[] = [];
    let failure: unknown;
    try {
      for await (const part of answer.stream()) sent.push(part.toString("utf8"));
    } catch (error) {
      failure = error;
    }
    expect(sent.join("")).toContain("Hel");
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe("upstream_stream_error");
    expect((failure as GatewayError).message).toContain("[REDACTED] was revoked");
    expect((failure as GatewayError).message).not.toContain(KEY);
  });
});
