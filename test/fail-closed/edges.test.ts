/**
 * Fail closed at the edges: parser refusals tell keep-alive clients the connection is closing,
 * rate-limit and quota errors carry the types OpenAI clients expect, SSRF refusals name the key a
 * gateway user would change, and plugins from modules never run on the library caller's thread.
 */
import { connect } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../../index.js";
import { errorBody } from "../../server/errors.js";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures");

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

/** Sends raw bytes on a fresh connection; resolves to everything the server sent before closing. */
function raw(request: string): Promise<string> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(request);
  });
}

describe("parser refusals", () => {
  it("answers 431 for oversized headers with Connection: close and a JSON error", async () => {
    const answer = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error.code).toBe("headers_too_large");
  });

  it("answers 400 for a malformed request with Connection: close", async () => {
    const answer = await raw("NOT A REQUEST\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.toLowerCase()).toContain("connection: close");
  });
});

describe("error types", () => {
  it("uses OpenAI's types for rate limits and spent quota, Anthropic's on /v1/messages", () => {
    expect(errorBody("openai", 429, "rate_limited", "slow down")).toMatchObject({ error: { type: "rate_limit_error" } });
    expect(errorBody("openai", 402, "budget_exhausted", "spent")).toMatchObject({ error: { type: "insufficient_quota" } });
    expect(errorBody("anthropic", 429, null, "slow down")).toMatchObject({ error: { type: "rate_limit_error" } });
    expect(errorBody("anthropic", 402, null, "spent")).toMatchObject({ error: { type: "billing_error" } });
  });
});

describe("SSRF refusals", () => {
  it("name the config-file key that allows private addresses", async () => {
    const response = await fetch(`${gateway.url}/v1/hooks/evaluate`, {
      method: "POST",
      headers: { "content-type": "application/json", ...gatewayHeaders() },
      body: JSON.stringify({
        side: "input",
        guardrails: [{ checks: [{ id: "default.webhook", parameters: { webhookURL: "http://127.0.0.1:9/hook" } }] }],
        request: { messages: [{ role: "user", content: "hi" }] },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      hook_results: { before_request_hooks: Array<{ checks: Array<{ error: { message: string } }> }> };
    };
    const message = body.hook_results.before_request_hooks[0]?.checks[0]?.error.message ?? "";
    expect(message).toContain("settings.checks_allow_private_addresses");
    expect(message).not.toContain("allowPrivateAddresses");
  });
});

describe("the library's default executor", () => {
  it("cuts off a plugin check from a module that never yields, instead of hanging the caller", async () => {
    const engine = await createEngine({ plugins: ["./hostile-plugin.js"], baseDir: fixtures });
    try {
      const evaluation = await engine.evaluate({
        side: "input",
        requestType: "chatComplete",
        request: { messages: [{ role: "user", content: "hi" }] },
        guardrails: [{ checks: [{ id: "hostile.forever", parameters: { timeout: 200 } }] }],
      });
      expect(evaluation.results[0]?.checks[0]?.error).toMatchObject({ name: "TimeoutError" });
    } finally {
      await engine.close();
    }
  });

  it("stays inline for built-in checks and plugins given as objects", async () => {
    const engine = await createEngine();
    try {
      expect(engine.executor.constructor.name).toBe("InlineExecutor");
    } finally {
      await engine.close();
    }
  });
});
