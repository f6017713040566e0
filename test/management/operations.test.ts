import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
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
    // An inline guardrail's id is the client's to choose: it is counted under `inline`.
    expect(text).toMatch(/guardgate_guardrail_verdicts_total\{guardrail="inline",side="input",verdict="pass"\} 1/);
    expect(text).toMatch(/guardgate_guardrail_verdicts_total\{guardrail="inline",side="input",verdict="fail"\} 1/);
    expect(text).not.toContain('guardrail="words"');
    expect(text).toMatch(/guardgate_check_duration_seconds_count\{check="default.wordCount"\} 2/);
    expect(text).toMatch(/guardgate_request_duration_seconds_count\{route="\/v1\/chat\/completions"\} 2/);
    expect(text).toMatch(/guardgate_upstream_duration_seconds_count\{provider="@mock"\} 1/);
    expect(text).toMatch(/guardgate_log_records_dropped_total 0/);
    expect(text).toMatch(/guardgate_log_writer_queue_depth \d+/);
    expect(text).toMatch(/guardgate_pool_worker_restarts_total\{reason="time_limit"\} \d+/);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).not.toContain(gateway.keys.api_key);
  });

  it("labels guardrails only with saved ids: 1,000 random inline ids, through both routes, add no series", async () => {
    const gateway = await start({
      file: {
        metrics: { token: TOKEN },
        guardrails: [{ id: "saved-words", async: false, checks: [{ id: "default.wordCount", parameters: { maxWords: 50 } }] }],
      },
    });
    const scrape = async () => {
      await gateway.app.guardgate.drainLogs();
      const text = (await gateway.call("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text;
      return text.split("\n").filter((line) => line.startsWith("guardgate_"));
    };
    const randomId = () => `g-${randomBytes(8).toString("hex")}`;
    const send = async (id: string, index: number) => {
      const guardrail = {
        id,
        deny: true,
        "default.wordCount": { maxWords: 50 },
        [`default.characterCount`]: { maxCharacters: 500 },
      };
      const answer =
        index % 2 === 0
          ? await gateway.call("POST", "/v1/chat/completions", {
              key: gateway.keys.api_key,
              body: chat("@mock/m", "a few words"),
              headers: { "x-gateway-config": JSON.stringify({ input_guardrails: ["saved-words", guardrail] }) },
            })
          : await gateway.call("POST", "/v1/hooks/evaluate", {
              key: gateway.keys.api_key,
              body: { side: "input", request: chat("m", "a few words"), guardrails: ["saved-words", guardrail] },
            });
      expect(answer.status).toBe(200);
    };
    await send(randomId(), 0);
    await send(randomId(), 1);
    const before = await scrape();
    expect(before.join("\n")).toMatch(
      /guardgate_guardrail_verdicts_total\{guardrail="saved-words",side="input",verdict="pass"\} 2/,
    );
    expect(before.join("\n")).toMatch(/guardgate_guardrail_verdicts_total\{guardrail="inline",side="input",verdict="pass"\} 2/);
    expect(before.join("\n")).toMatch(/guardgate_check_duration_seconds_count\{check="default.characterCount"\} 2/);

    const ids = Array.from({ length: 1000 }, randomId);
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(ids.slice(i, i + 50).map((id, offset) => send(id, offset)));
    }
    const after = await scrape();
    const series = (lines: string[]) => lines.map((line) => line.slice(0, line.lastIndexOf(" ")));
    expect(series(after)).toEqual(series(before));
    expect(after.join("\n")).toMatch(/guardgate_guardrail_verdicts_total\{guardrail="inline",side="input",verdict="pass"\} 1002/);
    for (const id of ids.slice(0, 20)) expect(after.join("\n")).not.toContain(id);
  });

  it("counts tokens, estimated cost, retries, fallbacks and upstream errors by status", async () => {
    const upstream = await new FakeUpstream().start();
    try {
      const gateway = await start({
        file: {
          metrics: { token: TOKEN },
          providers: [{ slug: "up", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-upstream-secret-0123" }],
        },
      });
      const config = {
        strategy: { mode: "fallback" },
        targets: [
          { provider: "@up", retry: { attempts: 1, on_status_codes: [500] } },
          { provider: "@up", override_params: { model: "gpt-4o-mini" } },
        ],
      };
      // The first target fails twice (once retried), the second answers.
      upstream.enqueue({ kind: "json", status: 500, body: { error: { message: "boom" } } });
      upstream.enqueue({ kind: "json", status: 500, body: { error: { message: "boom" } } });
      const answer = await gateway.call("POST", "/v1/chat/completions", {
        key: gateway.keys.api_key,
        body: chat("gpt-4o-mini", "hello"),
        headers: { "x-gateway-config": JSON.stringify(config) },
      });
      expect(answer.status).toBe(200);
      upstream.enqueue({ kind: "json", status: 429, body: { error: { message: "slow down" } } });
      const limited = await gateway.call("POST", "/v1/chat/completions", {
        key: gateway.keys.api_key,
        body: chat("@up/gpt-4o-mini", "hello"),
      });
      expect(limited.status).toBe(429);
      await gateway.app.guardgate.drainLogs();
      const text = (await gateway.call("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text;
      expect(text).toMatch(/guardgate_retries_total\{provider="@up"\} 1\n/);
      expect(text).toMatch(/guardgate_fallbacks_total\{route="\/v1\/chat\/completions"\} 1\n/);
      expect(text).toMatch(/guardgate_upstream_errors_total\{provider="@up",status="500"\} 2\n/);
      expect(text).toMatch(/guardgate_upstream_errors_total\{provider="@up",status="429"\} 1\n/);
      // The fake answers 3 prompt and 3 completion tokens.
      expect(text).toMatch(/guardgate_tokens_total\{provider="@up",kind="input"\} 3\n/);
      expect(text).toMatch(/guardgate_tokens_total\{provider="@up",kind="output"\} 3\n/);
      const cost = /guardgate_estimated_cost_usd_total\{provider="@up"\} ([\d.e-]+)\n/.exec(text);
      expect(Number(cost?.[1])).toBeGreaterThan(0);
      expect(text).not.toContain("sk-upstream-secret-0123");
    } finally {
      await upstream.close();
    }
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
    await expect.poll(async () => (await gateway.call("GET", "/ready")).status).toBe(200);
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
    await expect.poll(async () => (await gateway.call("GET", "/ready")).status).toBe(200);
  });
});
