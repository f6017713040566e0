import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";
import { type RedisServer, startRedis } from "../support/redis-server.js";

const TOKEN = "metrics-token-0123456789";
const gateways: ManagedTestGateway[] = [];
let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
});

async function start(options: Parameters<typeof startManaged>[0] = {}) {
  const gateway = await startManaged(options);
  gateways.push(gateway);
  return gateway;
}

describe("GET /metrics", () => {
  it("reports requests, latencies, verdicts, check errors and the log writer, to the token's bearer only", async () => {
    const gateway = await start({ file: { metrics: { token: TOKEN } } });
    const config = JSON.stringify({
      input_guardrails: [{ id: "words", deny: true, "default.wordCount": { maxWords: 3 } }],
    });
    const passed = await gateway.call("POST", "/v1/chat/completions", {
      key: gateway.keys.api_key,
      body: chat("@mock/m", "two words"),
      headers: { "x-gateway-config": config },
    });
    expect(passed.status).toBe(200);
    const denied = await gateway.call("POST", "/v1/chat/completions", {
      key: gateway.keys.api_key,
      body: chat("@mock/m", "far too many words here for it"),
      headers: { "x-gateway-config": config },
    });
    expect(denied.status).toBe(446);
    await gateway.app.guardgate.drainLogs();

    expect((await gateway.call("GET", "/metrics")).status).toBe(401);
    expect((await gateway.call("GET", "/metrics", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(
      401,
    );
    const scrape = await gateway.call("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scrape.status).toBe(200);
    expect(scrape.headers["content-type"]).toMatch(/text\/plain/);
    const text = scrape.text;
    expect(text).toMatch(/guardgate_requests_total\{route="\/v1\/chat\/completions",status="200",provider="@mock"\} 1/);
    expect(text).toMatch(/guardgate_requests_total\{route="\/v1\/chat\/completions",status="446",provider="@mock"\} 1/);
    expect(text).toMatch(/guardgate_guardrail_verdicts_total\{guardrail="words",side="input",verdict="pass"\} 1/);
    expect(text).toMatch(/guardgate_guardrail_verdicts_total\{guardrail="words",side="input",verdict="fail"\} 1/);
    expect(text).toMatch(/guardgate_check_duration_seconds_count\{check="default.wordCount"\} 2/);
    expect(text).toMatch(/guardgate_request_duration_seconds_count\{route="\/v1\/chat\/completions"\} 2/);
    expect(text).toMatch(/guardgate_upstream_duration_seconds_count\{provider="@mock"\} 1/);
    expect(text).toMatch(/guardgate_log_records_dropped_total 0/);
    expect(text).toMatch(/guardgate_log_writer_queue_depth \d+/);
    expect(text).toMatch(/guardgate_pool_worker_restarts \d+/);
    expect(text).not.toContain(gateway.keys.api_key);
  });

  it("does not exist without a token set", async () => {
    const gateway = await start();
    expect((await gateway.call("GET", "/metrics")).status).toBe(404);
  });
});

describe("GET /ready", () => {
  it("is ready when the store and the pool answer", async () => {
    const gateway = await start();
    const ready = await gateway.call("GET", "/ready");
    expect(ready).toMatchObject({ status: 200, body: { status: "ready", checks: { store: "ok", pool: "ok" } } });
    expect((await gateway.call("GET", "/health")).status).toBe(200);
  });

  it("is unavailable, naming Redis, while Redis is down, and ready again once it is back", async () => {
    const gateway = await start({ redisUrl: redis.url });
    await expect.poll(async () => (await gateway.call("GET", "/ready")).status, { timeout: 5000 }).toBe(200);
    await redis.pause();
    try {
      const down = await gateway.call("GET", "/ready");
      expect(down).toMatchObject({ status: 503, body: { status: "unavailable", checks: { store: "ok", redis: "unavailable" } } });
      // Limits fail open by default: requests are still answered.
      expect(
        (await gateway.call("POST", "/v1/chat/completions", { key: gateway.keys.api_key, body: chat("@mock/m") })).status,
      ).toBe(200);
    } finally {
      await redis.start();
    }
    await expect.poll(async () => (await gateway.call("GET", "/ready")).status, { timeout: 5000 }).toBe(200);
  });
});
