/**
 * Retry, fallback, loadbalance and cache, end to end through the OpenAI SDK.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, startGateway, type TestGateway } from "../support/gateway.js";

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startGateway({
    file: { providers: [{ slug: "fake", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-fake-secret" }] },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

function client(config: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: "unused",
    maxRetries: 0,
    defaultHeaders: { "x-gateway-api-key": API_KEY, "x-gateway-config": JSON.stringify(config) },
  });
}

const ask = (content: string) => ({ model: "gpt-test", messages: [{ role: "user" as const, content }] });
const mustSayGood = { output_guardrails: [{ regexMatch: { rule: "good" } }] };
const models = () => upstream.requests.map((r) => r.body.model);

describe("retry", () => {
  it("retries on 246 and returns the attempt whose output passed", async () => {
    upstream.enqueue({ kind: "answer", text: "bad answer" }, { kind: "answer", text: "good answer" });
    const config = { provider: "@fake", retry: { attempts: 2, on_status_codes: [246] }, ...mustSayGood };
    const { data, response } = await client(config).chat.completions.create(ask("q")).withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe("good answer");
    expect(upstream.requests).toHaveLength(2);
    const record = await gateway.logs.waitFor((r) => r.id === response.headers.get("x-gateway-request-id"));
    expect(record.attempts.map((a) => a.status)).toEqual([246, 200]);
  });

  it("returns the last answer when every attempt fails", async () => {
    upstream.defaultText = "bad";
    const config = { provider: "@fake", retry: { attempts: 2, on_status_codes: [246] }, ...mustSayGood };
    const { response } = await client(config).chat.completions.create(ask("q")).withResponse();
    expect(response.status).toBe(246);
    expect(upstream.requests).toHaveLength(3);
  });

  it("retries upstream 429 (honouring Retry-After) and 503 by default codes", async () => {
    upstream.enqueue(
      { kind: "json", status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after": "0" } },
      { kind: "json", status: 503, body: { error: { message: "busy" } } },
    );
    const data = await client({ provider: "@fake", retry: { attempts: 3 } }).chat.completions.create(ask("q"));
    expect(data.choices[0]?.message.content).toBe("echo: q");
    expect(upstream.requests).toHaveLength(3);
  });

  it("does not wait for a Retry-After beyond the limit: the 429 is returned", async () => {
    upstream.enqueue({
      kind: "json",
      status: 429,
      body: { error: { message: "come back tomorrow" } },
      headers: { "retry-after": "86400" },
    });
    const error = (await client({ provider: "@fake", retry: { attempts: 3 } })
      .chat.completions.create(ask("q"))
      .catch((e: unknown) => e)) as { status: number };
    expect(error.status).toBe(429);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe("fallback", () => {
  it("moves to the next target on 446, each target with its own guardrails", async () => {
    upstream.defaultText = "bad";
    const config = {
      strategy: { mode: "fallback", on_status_codes: [446] },
      targets: [
        {
          provider: "@fake",
          override_params: { model: "first" },
          output_guardrails: [{ deny: true, regexMatch: { rule: "good" } }],
        },
        { provider: "@fake", override_params: { model: "second" }, output_guardrails: [{ wordCount: { minWords: 1 } }] },
      ],
    };
    const { data, response } = await client(config).chat.completions.create(ask("q")).withResponse();
    expect(response.status).toBe(200);
    expect(models()).toEqual(["first", "second"]);
    const hooks = (data as unknown as { hook_results: { after_request_hooks: Array<{ checks: Array<{ id: string }> }> } })
      .hook_results;
    expect(hooks.after_request_hooks[0]?.checks[0]?.id).toBe("default.wordCount");
  });

  it("moves on when an input guardrail denies, without calling the denied target", async () => {
    const config = {
      strategy: { mode: "fallback", on_status_codes: [446] },
      targets: [
        {
          provider: "@fake",
          override_params: { model: "strict" },
          input_guardrails: [{ deny: true, wordCount: { maxWords: 1 } }],
        },
        { provider: "@fake", override_params: { model: "lenient" } },
      ],
    };
    await client(config).chat.completions.create(ask("three words here"));
    expect(models()).toEqual(["lenient"]);
  });

  it("moves to the next target on an upstream 503 when no codes are listed", async () => {
    upstream.enqueue({ kind: "json", status: 503, body: { error: { message: "down" } } });
    const config = {
      strategy: { mode: "fallback" },
      targets: [
        { provider: "@fake", override_params: { model: "a" } },
        { provider: "@fake", override_params: { model: "b" } },
      ],
    };
    const data = await client(config).chat.completions.create(ask("q"));
    expect(data.model).toBe("b");
    expect(models()).toEqual(["a", "b"]);
  });

  it("stops on a 246 when no codes are listed (a 2xx ends the chain)", async () => {
    upstream.defaultText = "bad";
    const config = {
      strategy: { mode: "fallback" },
      targets: [
        { provider: "@fake", override_params: { model: "a" }, ...mustSayGood },
        { provider: "@fake", override_params: { model: "b" } },
      ],
    };
    const { response } = await client(config).chat.completions.create(ask("q")).withResponse();
    expect(response.status).toBe(246);
    expect(models()).toEqual(["a"]);
  });

  it("returns the last target's error when every target fails", async () => {
    upstream.enqueue(
      { kind: "json", status: 503, body: { error: { message: "a down" } } },
      { kind: "json", status: 500, body: { error: { message: "b down" } } },
    );
    const config = { strategy: { mode: "fallback" }, targets: [{ provider: "@fake" }, { provider: "@fake" }] };
    const error = (await client(config)
      .chat.completions.create(ask("q"))
      .catch((e: unknown) => e)) as { status: number; message: string };
    expect(error.status).toBe(500);
    expect(error.message).toContain("b down");
  });
});

describe("loadbalance", () => {
  it("spreads requests by weight and never picks a weight-0 target", async () => {
    const config = {
      strategy: { mode: "loadbalance" },
      targets: [
        { provider: "@fake", weight: 1, override_params: { model: "left" } },
        { provider: "@fake", weight: 1, override_params: { model: "right" } },
        { provider: "@fake", weight: 0, override_params: { model: "never" } },
      ],
    };
    const openai = client(config);
    for (let i = 0; i < 40; i++) await openai.chat.completions.create(ask(`q${i}`));
    const seen = new Set(models());
    expect(seen.has("left")).toBe(true);
    expect(seen.has("right")).toBe(true);
    expect(seen.has("never")).toBe(false);
  });
});

describe("cache", () => {
  it("answers a repeated request from the cache, running the guardrails on the hit", async () => {
    const config = {
      provider: "@fake",
      cache: { mode: "simple", max_age: 60 },
      input_guardrails: [{ wordCount: { minWords: 1 } }],
    };
    const openai = client(config);
    const first = await openai.chat.completions.create(ask("cache me")).withResponse();
    const second = await openai.chat.completions.create(ask("cache me")).withResponse();
    expect(first.response.headers.get("x-gateway-cache-status")).toBe("MISS");
    expect(second.response.headers.get("x-gateway-cache-status")).toBe("HIT");
    expect(second.data.choices[0]?.message.content).toBe("echo: cache me");
    expect((second.data as unknown as { hook_results: unknown }).hook_results).toBeDefined();
    expect(upstream.requests).toHaveLength(1);
    await openai.chat.completions.create(ask("something else"));
    expect(upstream.requests).toHaveLength(2);
  });

  it("a cached answer still meets the input guardrails: a deny on the hit is a 446", async () => {
    await client({ provider: "@fake", cache: { mode: "simple" } }).chat.completions.create(ask("forbidden words"));
    const config = {
      provider: "@fake",
      cache: { mode: "simple" },
      input_guardrails: [{ deny: true, regexMatch: { rule: "forbidden", not: true } }],
    };
    const error = (await client(config)
      .chat.completions.create(ask("forbidden words"))
      .catch((e: unknown) => e)) as { status: number };
    expect(error.status).toBe(446);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe("retry on 246 caused by the input side", () => {
  it("does not retry: the input side is not repeated, so the answer cannot change", async () => {
    const config = {
      provider: "@fake",
      retry: { attempts: 3, on_status_codes: [246] },
      input_guardrails: [{ wordCount: { minWords: 10 } }],
    };
    const { response } = await client(config).chat.completions.create(ask("short")).withResponse();
    expect(response.status).toBe(246);
    expect(upstream.requests).toHaveLength(1);
  });
});
