/**
 * OpenTelemetry traces with a real SDK registered (as an operator would): a request's span, its
 * guardrail phases and its upstream attempt, continuing the caller's trace; none when tracing is off.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
let upstream: FakeUpstream;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  upstream = await new FakeUpstream().start();
});

afterAll(async () => {
  await upstream.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
  exporter.reset();
});

async function gatewayWith(tracing: boolean) {
  const gateway = await startGateway({
    file: {
      settings: { tracing },
      providers: [{ slug: "fake-openai", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-server-held-secret" }],
    },
  });
  gateways.push(gateway);
  return gateway;
}

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const config = {
  input_guardrails: [{ id: "in", "default.wordCount": { maxWords: 50 } }],
  output_guardrails: [{ id: "out", "default.wordCount": { maxWords: 500 } }],
};

function client(gateway: TestGateway) {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "sk-client-own-key",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": API_KEY,
      "x-gateway-config": JSON.stringify(config),
      traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01`,
    },
  });
}

describe("OpenTelemetry traces", () => {
  it("report the request, each guardrail phase and the upstream attempt, in the caller's trace", async () => {
    const gateway = await gatewayWith(true);
    const answer = await client(gateway).chat.completions.create({
      model: "@fake-openai/gpt-4o-mini",
      messages: [{ role: "user", content: "Hello there" }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    await expect.poll(() => exporter.getFinishedSpans().some((span) => span.name.startsWith("POST "))).toBe(true);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === "POST /v1/chat/completions")!;
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(request.attributes).toMatchObject({ "http.response.status_code": 200, "http.route": "/v1/chat/completions" });
    const child = (name: string) => spans.find((span) => span.name === name);
    for (const name of ["guardrails input", "guardrails output", "chat gpt-4o-mini"]) {
      expect(child(name)?.spanContext().traceId).toBe(TRACE_ID);
      expect(child(name)?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    }
    expect(child("chat gpt-4o-mini")?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o-mini",
      "server.address": "127.0.0.1",
      "http.response.status_code": 200,
    });
    expect(child("guardrails input")?.attributes).toMatchObject({
      "guardgate.guardrail.ids": ["in"],
      "guardgate.guardrail.status": 200,
    });
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain("sk-server-held-secret");
  });

  it("are off unless the setting turns them on", async () => {
    const gateway = await gatewayWith(false);
    await client(gateway).chat.completions.create({
      model: "@fake-openai/gpt-4o-mini",
      messages: [{ role: "user", content: "Hello there" }],
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
