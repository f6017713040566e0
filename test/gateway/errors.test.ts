/**
 * Every error the gateway answers (spec §7): the right status and envelope on every route, and
 * never a 500 for bad input.
 */
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { API_KEY, gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

let upstream: FakeUpstream;
let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startGateway({
    bodyLimit: 64 * 1024,
    logger: {
      level: "debug",
      stream: new Writable({
        write(chunk, _encoding, callback) {
          logLines.push(String(chunk));
          callback();
        },
      }),
    },
    file: {
      providers: [{ slug: "fake", provider: "openai", base_url: upstream.baseUrl, api_key: "sk-provider-secret-value" }],
      configs: [{ id: "saved", config: { provider: "@fake" } }],
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

beforeEach(() => upstream.reset());

const INFERENCE = ["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/messages"];
const HOOKS = ["/v1/hooks/evaluate", "/v1/hooks/webhook?guardrails=x"];
const ROUTES = [...INFERENCE, ...HOOKS];

function bodyFor(route: string): Record<string, unknown> {
  if (route.includes("/hooks/evaluate"))
    return { side: "input", guardrails: [{ wordCount: { minWords: 1 } }], request: { messages: [] } };
  if (route.includes("/hooks/webhook")) return { request: { json: { messages: [] } }, eventType: "beforeRequestHook" };
  if (route.endsWith("/completions") && !route.includes("chat")) return { model: "m", prompt: "hi" };
  if (route.endsWith("/embeddings")) return { model: "m", input: "hi" };
  return { model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] };
}

async function call(
  route: string,
  options: { headers?: Record<string, string>; body?: string | Record<string, unknown> } = {},
): Promise<{ status: number; body: Record<string, unknown>; text: string; headers: Headers }> {
  const response = await fetch(`${gateway.url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(options.headers ?? gatewayHeaders()) },
    body: typeof options.body === "string" ? options.body : JSON.stringify(options.body ?? bodyFor(route)),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    body = {};
  }
  return { status: response.status, body, text, headers: response.headers };
}

/** The error message and type, whichever envelope the route uses. */
function errorOf(route: string, body: Record<string, unknown>): { message: string; type: string; code?: unknown } {
  const error = body.error as { message: string; type: string; code?: unknown };
  if (route === "/v1/messages") {
    expect(body.type).toBe("error");
    expect(error).not.toHaveProperty("code");
  } else {
    expect(error).toHaveProperty("param", null);
  }
  return error;
}

describe.each(ROUTES)("%s", (route) => {
  it("401 without x-gateway-api-key, and with an unknown key", async () => {
    const missing = await call(route, { headers: {} });
    expect(missing.status).toBe(401);
    expect(errorOf(route, missing.body).message).toContain("x-gateway-api-key");
    const unknown = await call(route, { headers: { "x-gateway-api-key": "gk-wrong-0123456789abcdef" } });
    expect(unknown.status).toBe(401);
    expect(errorOf(route, unknown.body).type).toBe("authentication_error");
  });

  it("400 for malformed JSON, a body that is not an object, and an empty body", async () => {
    for (const body of ["{not json", "[1, 2]", '"text"', ""]) {
      const answer = await call(route, { body });
      expect(answer.status, `body ${body}`).toBe(400);
      expect(errorOf(route, answer.body).message.length).toBeGreaterThan(0);
    }
  });

  it("413 for a body over the limit", async () => {
    const answer = await call(route, { body: { ...bodyFor(route), padding: "x".repeat(70 * 1024) } });
    expect(answer.status).toBe(413);
    expect(errorOf(route, answer.body).message).toContain("65536");
  });

  it("415 for a form body, 400 for plain text", async () => {
    const form = await fetch(`${gateway.url}${route}`, {
      method: "POST",
      headers: { ...gatewayHeaders(), "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    expect(form.status).toBe(415);
    expect(((await form.json()) as { error: { message: string } }).error.message).toContain("application/json");
    const text = await fetch(`${gateway.url}${route}`, {
      method: "POST",
      headers: { ...gatewayHeaders(), "content-type": "text/plain" },
      body: "hello",
    });
    expect(text.status).toBe(400);
  });
});

describe.each(INFERENCE)("%s config errors", (route) => {
  const cases: Array<[string, string, number, string]> = [
    ["malformed inline config", "{oops", 400, "x-gateway-config"],
    ["inline config that is not an object", "{}x", 400, "x-gateway-config"],
    [
      "unknown check",
      JSON.stringify({ provider: "@fake", input_guardrails: [{ "default.nope": {} }] }),
      400,
      "input_guardrails[0]",
    ],
    [
      "bad check parameters",
      JSON.stringify({ provider: "@fake", input_guardrails: [{ wordCount: { minWords: "many" } }] }),
      400,
      "minWords",
    ],
    ["unknown guardrail id", JSON.stringify({ provider: "@fake", input_guardrails: ["ghost"] }), 400, "ghost"],
    ["bad retry", JSON.stringify({ provider: "@fake", retry: { attempts: -1 } }), 400, "retry.attempts"],
    [
      "bad strategy",
      JSON.stringify({ strategy: { mode: "roundrobin" }, targets: [{ provider: "@fake" }] }),
      400,
      "strategy.mode",
    ],
    ["unknown cache mode", JSON.stringify({ provider: "@fake", cache: { mode: "semantic" } }), 400, "cache.mode"],
    ["unknown config id", "no-such-config", 404, "no-such-config"],
    ["unknown provider slug", JSON.stringify({ provider: "@ghost" }), 404, "ghost"],
    ["unknown provider name", JSON.stringify({ provider: "nowhere-ai" }), 400, "nowhere-ai"],
  ];
  it.each(cases)("%s", async (_name, config, status, mention) => {
    const answer = await call(route, { headers: gatewayHeaders(undefined, { "x-gateway-config": config }) });
    expect(answer.status).toBe(status);
    expect(errorOf(route, answer.body).message).toContain(mention);
    expect(upstream.requests).toHaveLength(0);
  });

  it("404 for an unknown slug in the model, 400 for a bad model reference", async () => {
    const body = { ...bodyFor(route), model: "@ghost/some-model" };
    expect((await call(route, { body })).status).toBe(404);
    expect((await call(route, { body: { ...body, model: "@nomodel" } })).status).toBe(400);
  });

  it("400 for malformed x-gateway-metadata", async () => {
    for (const metadata of ["{nope", "[1]", '{"n": 1}']) {
      const answer = await call(route, { headers: gatewayHeaders("saved", { "x-gateway-metadata": metadata }) });
      expect(answer.status).toBe(400);
      expect(errorOf(route, answer.body).message).toContain("x-gateway-metadata");
    }
  });

  it("400 when no provider can be resolved", async () => {
    const answer = await call(route);
    expect(answer.status).toBe(400);
    expect(errorOf(route, answer.body).message).toContain("no provider");
  });
});

describe("upstream failures", () => {
  const route = "/v1/chat/completions";
  const viaFake = (extra: Record<string, unknown> = {}) =>
    gatewayHeaders({ provider: "openai", custom_host: upstream.baseUrl, ...extra });

  it("502 when the upstream cannot be reached", async () => {
    const answer = await call(route, { headers: gatewayHeaders({ provider: "openai", custom_host: "http://127.0.0.1:1/v1" }) });
    expect(answer.status).toBe(502);
    expect((answer.body.error as { code: string }).code).toBe("upstream_unreachable");
  });

  it("502 when the upstream answers garbage, truncates its body, or resets the connection", async () => {
    upstream.enqueue(
      { kind: "raw", body: "<html>not json</html>", contentType: "text/html" },
      { kind: "truncate" },
      { kind: "reset" },
    );
    for (let i = 0; i < 3; i++) {
      const answer = await call(route, { headers: viaFake() });
      expect(answer.status, `case ${i}`).toBe(502);
    }
  });

  it("504 when the upstream stalls past request_timeout", async () => {
    upstream.enqueue({ kind: "stall" });
    const answer = await call(route, { headers: viaFake({ request_timeout: 200 }) });
    expect(answer.status).toBe(504);
    expect((answer.body.error as { code: string }).code).toBe("upstream_timeout");
  });

  it("passes upstream error statuses and bodies through, with the input side's hook_results", async () => {
    upstream.enqueue({
      kind: "json",
      status: 400,
      body: { error: { message: "bad model", type: "invalid_request_error", code: "model_not_found" } },
    });
    const answer = await call(route, { headers: viaFake({ input_guardrails: [{ wordCount: { minWords: 1 } }] }) });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual({ message: "bad model", type: "invalid_request_error", code: "model_not_found" });
    expect(answer.body.hook_results).toMatchObject({ before_request_hooks: [{ verdict: true }], after_request_hooks: [] });
  });

  it("passes a non-JSON upstream error body through as it is", async () => {
    upstream.enqueue({ kind: "raw", status: 503, body: "Service Unavailable", contentType: "text/plain" });
    const answer = await call(route, { headers: viaFake() });
    expect(answer.status).toBe(503);
    expect(answer.text).toBe("Service Unavailable");
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("scrubs a slug's credential from anything the upstream sends back", async () => {
    upstream.enqueue({
      kind: "json",
      status: 401,
      body: { error: { message: "Incorrect API key provided: sk-provider-secret-value" } },
    });
    const answer = await call(route, { headers: gatewayHeaders({ provider: "@fake" }) });
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain("sk-provider-secret-value");
  });
});

describe("custom hosts", () => {
  const route = "/v1/chat/completions";
  it.each([
    ["a private address", "http://10.1.2.3/v1"],
    ["a link-local address", "http://169.254.10.10/v1"],
    ["the cloud metadata address", "http://169.254.169.254/latest"],
    ["a private IPv6 address", "http://[fd12::1]/v1"],
  ])("refuses %s given by a client", async (_name, host) => {
    for (const headers of [
      gatewayHeaders({ provider: "openai", custom_host: host }),
      gatewayHeaders(undefined, { "x-gateway-provider": "openai", "x-gateway-custom-host": host }),
    ]) {
      const answer = await call(route, { headers });
      expect(answer.status).toBe(400);
      expect((answer.body.error as { code: string }).code).toBe("custom_host_refused");
    }
  });

  it("refuses a name that resolves to a refused address, at connect time", async () => {
    // localhost is loopback and allowed by default; this gateway refuses loopback too.
    const strict = await startGateway({ file: { settings: { custom_hosts: { allow_loopback: false } } } });
    try {
      const response = await fetch(`${strict.url}${route}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...gatewayHeaders({ provider: "openai", custom_host: `http://localhost:${new URL(upstream.origin).port}/v1` }),
        },
        body: JSON.stringify(bodyFor(route)),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("custom_host_refused");
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it("refuses to point a slug's credential at a client's host", async () => {
    const answer = await call(route, { headers: gatewayHeaders({ provider: "@fake", custom_host: upstream.baseUrl }) });
    expect(answer.status).toBe(400);
    expect((answer.body.error as { code: string }).code).toBe("custom_host_with_slug");
  });

  it("404 for an unknown route, in the route's envelope", async () => {
    const answer = await call("/v1/nothing-here");
    expect(answer.status).toBe(404);
  });
});

describe("no 500 for bad input", () => {
  it("a battery of malformed requests never yields a 5xx", async () => {
    const bodies: unknown[] = [
      {},
      { model: 42 },
      { messages: "not an array" },
      { messages: [null, 1, "x"] },
      { messages: [{ role: "user", content: [{ type: "image" }, 7, null] }] },
      { model: "@", messages: [] },
      { model: "@/x", messages: [] },
      { stream: "yes", messages: [] },
      { prompt: { nested: true } },
      { input: [[1, 2], null] },
      { side: "sideways", request: {} },
      { side: "output", guardrails: [{}], request: {} },
      { side: "input", config: "{broken", request: {} },
      { side: "input", config: 7, request: {} },
      { request: { json: "nope" } },
      { __proto__: { polluted: true }, messages: [] },
    ];
    const configs = [
      undefined,
      "{",
      "[]",
      JSON.stringify({ provider: "mock", targets: [] }),
      JSON.stringify({ provider: "mock", input_guardrails: [{}] }),
    ];
    for (const route of [
      ...ROUTES,
      "/v1/hooks/webhook",
      "/v1/hooks/webhook?config=nope",
      "/v1/hooks/webhook?guardrails=a&side=up",
    ]) {
      for (const body of bodies) {
        for (const config of configs) {
          const headers = gatewayHeaders(undefined, config === undefined ? {} : { "x-gateway-config": config });
          const answer = await call(route, { headers, body: JSON.stringify(body) });
          expect(answer.status, `${route} ${JSON.stringify(body)} ${config}`).toBeLessThan(500);
        }
      }
    }
  });

  it("writes one access line per request, once it is answered", async () => {
    const before = logLines.length;
    await call("/v1/chat/completions", { headers: gatewayHeaders({ provider: "@fake" }) });
    const lines = logLines
      .slice(before)
      .map((line) => JSON.parse(line) as { msg: string; req?: { method: string; url: string }; res?: { statusCode: number } });
    const access = lines.filter((line) => line.req || line.res);
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      msg: "request completed",
      req: { method: "POST", url: "/v1/chat/completions" },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
  });

  it("never writes a credential to the log", async () => {
    await call("/v1/chat/completions", {
      headers: gatewayHeaders(
        { provider: "@fake" },
        { authorization: "Bearer sk-client-secret-value", "x-api-key": "sk-ant-secret-value" },
      ),
    });
    await call("/v1/chat/completions", { headers: { "x-gateway-api-key": "gk-wrong-secret-value-0000" } });
    const log = logLines.join("");
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [
      API_KEY,
      "sk-client-secret-value",
      "sk-ant-secret-value",
      "sk-provider-secret-value",
      "gk-wrong-secret-value",
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
