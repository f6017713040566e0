/**
 * The hook backend: `/v1/hooks/evaluate` and the peer gateway's webhook contract on
 * `/v1/hooks/webhook`. No provider is called.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayHeaders, startGateway, type TestGateway } from "../support/gateway.js";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({
    file: {
      guardrails: [
        { id: "redact", side: "input", async: false, checks: [{ id: "test.redactDigits" }] },
        { id: "short", async: false, deny: true, checks: [{ id: "default.wordCount", parameters: { maxWords: 3 } }] },
        { id: "logged-only", checks: [{ id: "default.wordCount", parameters: { maxWords: 1 } }] },
      ],
      configs: [{ id: "support", config: { input_guardrails: ["redact", "short"], output_guardrails: ["short"] } }],
    },
  });
});

afterAll(() => gateway.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field, as a client would
type Json = Record<string, any>;

async function post(path: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...gatewayHeaders() },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const chat = (content: string) => ({ model: "m", messages: [{ role: "user", content }] });
const reply = (content: string) => ({ choices: [{ index: 0, message: { role: "assistant", content } }] });

describe("POST /v1/hooks/evaluate", () => {
  it("evaluates inline guardrails on a request and returns the transformed request", async () => {
    const { status, body } = await post("/v1/hooks/evaluate", {
      side: "input",
      guardrails: [{ "test.redactDigits": {} }, { wordCount: { minWords: 10 } }],
      request_type: "chatComplete",
      request: chat("pin 1234 please"),
    });
    expect(status).toBe(200);
    expect(body.status).toBe(246);
    expect(body.verdict).toBe(false);
    expect(body.hook_results.before_request_hooks).toHaveLength(2);
    expect(body.hook_results.after_request_hooks).toEqual([]);
    expect(body.request.messages[0].content).toBe("pin [NUMBER] please");
    expect(body.response).toBeUndefined();
    const record = await gateway.logs.waitFor((r) => r.route === "/v1/hooks/evaluate");
    expect(record).toMatchObject({ status: 246, request_type: "chatComplete" });
    expect(record.hook_results.before_request_hooks).toHaveLength(2);
  });

  it("evaluates the output side of a saved config, with a deny", async () => {
    const { body } = await post("/v1/hooks/evaluate", {
      side: "output",
      config: "support",
      request: chat("hi"),
      response: reply("far too many words in this answer"),
    });
    expect(body.status).toBe(446);
    expect(body.hook_results.after_request_hooks[0]).toMatchObject({ id: "short", verdict: false, deny: true });
  });

  it("accepts an inline config object and the stream- request types", async () => {
    const { body } = await post("/v1/hooks/evaluate", {
      side: "input",
      config: { input_guardrails: ["short"] },
      request_type: "stream-messages",
      request: { messages: [{ role: "user", content: [{ type: "text", text: "ok" }] }] },
    });
    expect(body).toMatchObject({ status: 200, verdict: true });
  });

  it("runs stored guardrails as their records say: async ones report without changing the status", async () => {
    const { body } = await post("/v1/hooks/evaluate", { side: "input", guardrails: ["logged-only"], request: chat("two words") });
    expect(body.status).toBe(200);
    expect(body.hook_results.before_request_hooks[0]).toMatchObject({ id: "logged-only", async: true, verdict: false });
    expect(body.warnings).toBeUndefined();
  });

  it.each([
    [{ side: "input", request: chat("x") }, "exactly one of"],
    [{ side: "input", guardrails: ["short"], config: "support", request: chat("x") }, "exactly one of"],
    [{ side: "output", guardrails: ["short"], request: chat("x") }, "response"],
    [{ side: "input", guardrails: ["short"], request_type: "translate", request: chat("x") }, "request_type"],
    [{ side: "input", guardrails: ["nope"], request: chat("x") }, 'unknown guardrail "nope"'],
    [{ side: "input", guardrails: [{ wordCount: { maxWords: -1 } }], request: chat("x") }, "guardrails[0].wordCount.maxWords"],
    [{ side: "input", config: "missing-config", request: chat("x") }, "missing-config"],
    [{ side: "up", guardrails: ["short"], request: chat("x") }, "side"],
  ])("400 or 404 with the path for %j", async (request, mention) => {
    const { status, body } = await post("/v1/hooks/evaluate", request);
    expect([400, 404]).toContain(status);
    expect(body.error.message).toContain(mention);
  });
});

describe("POST /v1/hooks/webhook (the peer gateway's webhook contract)", () => {
  const peerContext = (eventType: string, requestText: string, responseText?: string) => ({
    request: { json: chat(requestText), text: requestText, isStreamingRequest: false },
    response:
      responseText === undefined
        ? { json: {}, text: "", statusCode: null }
        : { json: reply(responseText), text: responseText, statusCode: 200 },
    provider: "openai",
    requestType: "chatComplete",
    metadata: { user: "u1" },
    eventType,
  });

  it("answers a beforeRequestHook with a verdict and the transformed request", async () => {
    const { status, body } = await post("/v1/hooks/webhook?guardrails=redact", peerContext("beforeRequestHook", "card 4111"));
    expect(status).toBe(200);
    expect(body.verdict).toBe(true);
    expect(body.transformedData).toEqual({ request: { json: chat("card [NUMBER]") } });
    expect(body.data.status).toBe(200);
  });

  it("answers an afterRequestHook on the response", async () => {
    const { body } = await post(
      "/v1/hooks/webhook?guardrails=short",
      peerContext("afterRequestHook", "hi", "this answer is too long"),
    );
    expect(body.verdict).toBe(false);
    expect(body.data.hook_results.after_request_hooks[0]).toMatchObject({ id: "short", verdict: false });
    expect(body.transformedData).toBeUndefined();
  });

  it("counts every named guardrail toward the verdict, async records included (the peer decides async)", async () => {
    const { body } = await post("/v1/hooks/webhook?guardrails=logged-only", peerContext("beforeRequestHook", "two words"));
    expect(body.verdict).toBe(false);
  });

  it("runs a saved config's list for the event's side", async () => {
    const { body } = await post("/v1/hooks/webhook?config=support", peerContext("beforeRequestHook", "short 42"));
    expect(body.verdict).toBe(true);
    expect(body.data.hook_results.before_request_hooks.map((r: { id: string }) => r.id)).toEqual(["redact", "short"]);
    expect(body.transformedData.request.json.messages[0].content).toBe("short [NUMBER]");
  });

  it("400 without guardrails to run, or without the response of an afterRequestHook", async () => {
    expect((await post("/v1/hooks/webhook", peerContext("beforeRequestHook", "x"))).status).toBe(400);
    const after = peerContext("afterRequestHook", "x");
    after.response = undefined as never;
    expect((await post("/v1/hooks/webhook?guardrails=short", after)).status).toBe(400);
  });
});
