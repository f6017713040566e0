import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckResult, createEngine, type Engine, type EvaluateOptions } from "../../../index.js";
import { type LocalServer, sendJson, startServer } from "../../../test/support/http-server.js";
import { prepareCheck } from "../../../test/support/check-harness.js";
import webhook from "./webhook.js";

const SECRET = "test-secret-0123456789";
const FENCE = "```";
type Verify = (rawBody: Buffer | string, header: unknown, secret: string, toleranceSeconds?: number) => boolean;

type Policy = (evaluation: unknown) => unknown;
interface Documented {
  verify: Verify;
  createReceiver: (secret: string, decide: Policy) => Server;
  codeNamePolicy: Policy;
}

/** The code of the docs, exactly as written: docs/webhooks.md's verify.mjs and receiver.mjs beside it. */
async function documentedCode(): Promise<Documented> {
  const docs = await readFile(new URL("../../../docs/webhooks.md", import.meta.url), "utf8");
  const block = (name: string) => {
    const opening = `${FENCE}js ${name}\n`;
    const start = docs.indexOf(opening);
    if (start < 0) throw new Error(`docs/webhooks.md has no block ${name}`);
    const from = start + opening.length;
    return docs.slice(from, docs.indexOf(FENCE, from));
  };
  const verify = block("verify.mjs");
  const dir = await mkdtemp(path.join(tmpdir(), "guardgate-docs-"));
  await writeFile(path.join(dir, "verify.mjs"), verify);
  await writeFile(path.join(dir, "receiver.mjs"), block("receiver.mjs"));
  const verifyModule = (await import(pathToFileURL(path.join(dir, "verify.mjs")).href)) as { verifyGuardgateSignature: Verify };
  const receiverModule = (await import(pathToFileURL(path.join(dir, "receiver.mjs")).href)) as Omit<Documented, "verify">;
  // Loaded: the files are no longer needed.
  await rm(dir, { recursive: true, force: true });
  return { verify: verifyModule.verifyGuardgateSignature, ...receiverModule };
}

const chatRequest = {
  model: "gpt-4o",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "My card is 4111 1111 1111 1111, please help" },
  ],
};
const messagesResponse = { id: "msg_1", role: "assistant", content: [{ type: "text", text: "The secret word is swordfish." }] };

let receiver: LocalServer;
let engine: Engine;
let strictEngine: Engine;
let verify: Verify;
let documented: Documented;

beforeAll(async () => {
  documented = await documentedCode();
  verify = documented.verify;
  receiver = await startServer(async (req, res) => {
    const evaluation = req.body ? JSON.parse(req.body) : {};
    switch (req.url) {
      case "/pass":
        return sendJson(res, 200, { verdict: true, data: { score: 0.1 } });
      case "/fail":
        return sendJson(res, 200, { verdict: false, data: { reason: "policy" } });
      case "/redact": {
        // Rewrites the evaluated side: the last user message, or the response's text block.
        if (evaluation.side === "input") {
          const json = structuredClone(evaluation.request.json);
          const last = json.messages[json.messages.length - 1];
          last.content = last.content.replace(/\d{4} \d{4} \d{4} \d{4}/, "[CARD]");
          return sendJson(res, 200, { verdict: true, transformedData: { request: { json }, response: { json: null } } });
        }
        const json = structuredClone(evaluation.response.json);
        json.content[0].text = json.content[0].text.replace("swordfish", "[WORD]");
        return sendJson(res, 200, { verdict: false, transformedData: { response: { json } } });
      }
      case "/same":
        return sendJson(res, 200, { verdict: true, transformedData: { request: { json: evaluation.request.json } } });
      case "/shape":
        return sendJson(res, 200, { verdict: true, transformedData: { request: { json: { model: "gpt-4o", prompt: "x" } } } });
      case "/reroute":
        return sendJson(res, 200, {
          verdict: true,
          transformedData: { request: { json: { ...evaluation.request.json, model: "gpt-4.5-preview" } } },
        });
      case "/malformed":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end("{verdict: true");
      case "/no-verdict":
        return sendJson(res, 200, { data: { note: "forgot" } });
      case "/string-verdict":
        return sendJson(res, 200, { verdict: "true" });
      case "/slow":
        setTimeout(() => sendJson(res, 200, { verdict: true }), 3_000).unref();
        return;
      case "/error":
        return sendJson(res, 500, { error: "boom" });
      case "/big":
        return sendJson(res, 200, { verdict: true, data: { padding: "x".repeat(8192) } });
      case "/redirect":
        res.writeHead(307, { location: "/pass" });
        return res.end();
      case "/verify": {
        // A receiver written from the docs: verify over the raw body, refuse anything else.
        const header = req.headers["x-guardgate-signature"];
        if (!verify(req.body, header, SECRET)) return sendJson(res, 401, { error: "bad signature" });
        return sendJson(res, 200, { verdict: true, data: { verified: true } });
      }
      default:
        return sendJson(res, 404, {});
    }
  });
  engine = await createEngine({ settings: { allowLoopback: true } });
  strictEngine = await createEngine();
});

afterAll(async () => {
  await receiver.close();
  await engine.close();
  await strictEngine.close();
});

function hook(route: string, extra: Record<string, unknown> = {}) {
  return { webhookURL: `${receiver.origin}${route}`, ...extra };
}

async function evaluate(parameters: Record<string, unknown>, options: Partial<EvaluateOptions> = {}, on = engine) {
  const evaluation = await on.evaluate({
    side: "input",
    requestType: "chatComplete",
    request: chatRequest,
    guardrails: [{ id: "gr-hook", deny: true, checks: [{ id: "default.webhook", parameters }] }],
    ...options,
  });
  const result = evaluation.results[0]?.checks[0] as CheckResult;
  return { evaluation, result };
}

function lastRequest(route: string) {
  const found = receiver.requests.filter((r) => r.url === route).at(-1);
  if (!found) throw new Error(`no request to ${route}`);
  return found;
}

describe("webhook: verdicts", () => {
  it("passes when the webhook says so, posting the evaluation and never the caller's credentials", async () => {
    const { evaluation, result } = await evaluate(hook("/pass", { headers: { "x-team": "search" } }), {
      metadata: { user: "u1" },
      headers: { authorization: "Bearer caller-token", "x-gateway-api-key": "gw-key", "user-agent": "sdk" },
      model: "gpt-4o",
      provider: "openai",
    });
    expect(evaluation.status).toBe(200);
    expect(result.verdict).toBe(true);
    expect(result.data).toMatchObject({
      verdict: true,
      status: 200,
      signed: false,
      transformed: false,
      responseData: { score: 0.1 },
    });
    expect(result.data.webhookUrl).toBe(`${receiver.origin}/pass`);

    const sent = lastRequest("/pass");
    expect(sent.method).toBe("POST");
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.headers["x-team"]).toBe("search");
    expect(sent.headers.authorization).toBeUndefined();
    const body = JSON.parse(sent.body);
    expect(body).toEqual({
      guardrailId: "gr-hook",
      side: "input",
      eventType: "beforeRequestHook",
      requestType: "chatComplete",
      provider: "openai",
      model: "gpt-4o",
      text: "My card is 4111 1111 1111 1111, please help",
      request: { json: chatRequest, text: "My card is 4111 1111 1111 1111, please help" },
      response: { json: null, text: "" },
      metadata: { user: "u1" },
    });
    expect(sent.body).not.toContain("caller-token");
    expect(sent.body).not.toContain("gw-key");
  });

  it("fails when the webhook says so (446 with deny)", async () => {
    const { evaluation, result } = await evaluate(hook("/fail"));
    expect(result.verdict).toBe(false);
    expect(result.error).toBeUndefined();
    expect(result.data.responseData).toEqual({ reason: "policy" });
    expect(evaluation.status).toBe(446);
  });

  it("accepts headers as a JSON string (the peer's form)", async () => {
    const { result } = await evaluate(hook("/pass", { headers: '{"X-Token":"abc"}' }));
    expect(result.verdict).toBe(true);
    expect(lastRequest("/pass").headers["x-token"]).toBe("abc");
  });
});

describe("webhook: transforms", () => {
  it("replaces the request with the webhook's transformed body", async () => {
    const { evaluation, result } = await evaluate(hook("/redact"));
    expect(result.verdict).toBe(true);
    expect(result.transformed).toBe(true);
    expect(result.data.transformed).toBe(true);
    expect(evaluation.transformed).toBe(true);
    const request = evaluation.request as typeof chatRequest;
    expect(request.messages[1]?.content).toBe("My card is [CARD], please help");
    expect(request.messages[0]).toEqual(chatRequest.messages[0]);
    expect(chatRequest.messages[1]?.content).toContain("4111");
  });

  it("replaces the response on the output side, keeping its blocks", async () => {
    const evaluation = await engine.evaluate({
      side: "output",
      requestType: "messages",
      request: { model: "claude-sonnet-4", messages: [{ role: "user", content: "word?" }] },
      response: messagesResponse,
      guardrails: [{ id: "gr-out", checks: [{ id: "default.webhook", parameters: hook("/redact") }] }],
    });
    const result = evaluation.results[0]?.checks[0] as CheckResult;
    expect(result.verdict).toBe(false);
    expect(result.transformed).toBe(true);
    expect(evaluation.response).toEqual({ ...messagesResponse, content: [{ type: "text", text: "The secret word is [WORD]." }] });
    const body = JSON.parse(lastRequest("/redact").body);
    expect(body).toMatchObject({ side: "output", eventType: "afterRequestHook", response: { json: messagesResponse } });
  });

  it("reports no transform when the webhook sends the body back unchanged", async () => {
    const { evaluation, result } = await evaluate(hook("/same"));
    expect(result.transformed).toBe(false);
    expect(evaluation.transformed).toBe(false);
  });

  it("refuses a transformed body that loses the request type's shape, replacing nothing", async () => {
    const { evaluation, result } = await evaluate(hook("/shape"));
    expect(result.error).toMatchObject({ message: expect.stringMatching(/no longer has the shape of a chatComplete request/) });
    expect(evaluation.request).toEqual(chatRequest);
    expect(evaluation.transformed).toBe(false);
  });

  it("refuses a transformed request that changes the model", async () => {
    const { evaluation, result } = await evaluate(hook("/reroute"));
    expect(result.error).toMatchObject({ message: expect.stringContaining('changes "model"') });
    expect(evaluation.request).toEqual(chatRequest);
  });
});

describe("webhook: answers that are errors", () => {
  it.each([
    ["/malformed", /answer is not JSON/],
    ["/no-verdict", /has no verdict/],
    ["/string-verdict", /verdict that is not a boolean/],
    ["/error", /answered HTTP 500/],
    ["/redirect", /redirect \(HTTP 307\); redirects are not followed/],
  ])("%s is a check error, not a verdict", async (route, message) => {
    const { evaluation, result } = await evaluate(hook(route));
    expect(result.verdict).toBe(false);
    expect(result.error).toMatchObject({ message: expect.stringMatching(message) });
    // Without failOnError an errored check does not fail its guardrail (spec §2.4).
    expect(evaluation.status).toBe(200);
  });

  it("with failOnError, an error fails the guardrail", async () => {
    const { evaluation, result } = await evaluate(hook("/error", { failOnError: true }));
    expect(result.fail_on_error).toBe(true);
    expect(evaluation.status).toBe(446);
  });

  it("times out a slow webhook", async () => {
    const started = Date.now();
    const { result } = await evaluate(hook("/slow", { timeout: 200 }));
    expect(result.error).toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("refuses an answer over the size limit", async () => {
    const { result } = await evaluate(hook("/big", { maxResponseBytes: 4096 }));
    expect(result.error).toMatchObject({ message: expect.stringContaining("size limit of 4096 bytes") });
  });

  it("refuses a loopback webhook unless the settings allow it, without calling it", async () => {
    const before = receiver.requests.length;
    const { result } = await evaluate(hook("/pass"), {}, strictEngine);
    expect(result.error).toMatchObject({ message: expect.stringContaining("network policy refuses") });
    expect(receiver.requests.length).toBe(before);
  });
});

describe("webhook: signature", () => {
  it("signs with the check's secret so the documented verification accepts the call", async () => {
    const { result } = await evaluate(hook("/verify", { credentials: { secret: SECRET } }));
    expect(result.error).toBeUndefined();
    expect(result.verdict).toBe(true);
    expect(result.data).toMatchObject({ signed: true, responseData: { verified: true } });
    const sent = lastRequest("/verify");
    expect(sent.headers["x-guardgate-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(sent.body).not.toContain(SECRET);
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it("is refused by the receiver when signed with another secret or not at all", async () => {
    const wrong = await evaluate(hook("/verify", { credentials: { secret: "another-secret" } }));
    expect(wrong.result.error).toMatchObject({ message: expect.stringContaining("HTTP 401") });
    const unsigned = await evaluate(hook("/verify"));
    expect(unsigned.result.error).toMatchObject({ message: expect.stringContaining("HTTP 401") });
  });

  it("the documented verification refuses tampered bodies and stale timestamps", async () => {
    const { signatureHeader } = await import("../shared/webhook-signature.js");
    const body = '{"text":"hi"}';
    const now = Math.floor(Date.now() / 1000);
    expect(verify(body, signatureHeader(SECRET, body, now), SECRET)).toBe(true);
    expect(verify(Buffer.from(body), signatureHeader(SECRET, body, now), SECRET)).toBe(true);
    expect(verify('{"text":"ho"}', signatureHeader(SECRET, body, now), SECRET)).toBe(false);
    expect(verify(body, signatureHeader(SECRET, body, now - 3600), SECRET)).toBe(false);
    expect(verify(body, undefined, SECRET)).toBe(false);
    expect(verify(body, "t=abc,v1=00", SECRET)).toBe(false);
  });
});

describe("webhook: the receiver of docs/webhooks.md", () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = documented.createReceiver(SECRET, documented.codeNamePolicy);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const ask = (content: string, secret = SECRET) =>
    engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: { model: "gpt-4o", messages: [{ role: "user", content }] },
      guardrails: [
        {
          id: "house-policy",
          checks: [{ id: "default.webhook", parameters: { webhookURL: `${origin}/`, credentials: { secret } } }],
        },
      ],
    });

  it("passes clean text", async () => {
    const evaluation = await ask("Summarise the launch plan");
    expect(evaluation.status).toBe(200);
    expect(evaluation.results[0]?.checks[0]?.data).toMatchObject({ signed: true, verdict: true });
  });

  it("fails and redacts the code name (246 without deny)", async () => {
    const evaluation = await ask("Summarise the Bluebird launch plan");
    expect(evaluation.status).toBe(246);
    expect(evaluation.request).toEqual({
      model: "gpt-4o",
      messages: [{ role: "user", content: "Summarise the [code name] launch plan" }],
    });
    expect(evaluation.results[0]?.checks[0]?.data.responseData).toEqual({ reason: "mentions a code name" });
  });

  it("refuses calls signed with another secret", async () => {
    const evaluation = await ask("hello", "not-the-secret");
    expect(evaluation.results[0]?.checks[0]?.error).toMatchObject({ message: expect.stringContaining("HTTP 401") });
  });
});

describe("webhook: configuration", () => {
  it("applies the defaults and rejects bad URLs and headers at load time", () => {
    expect(prepareCheck(webhook, { webhookURL: "https://hooks.example.com/x" }).parameters).toMatchObject({
      timeout: 3000,
      maxResponseBytes: 1048576,
    });
    expect(prepareCheck(webhook, { webhookURL: "https://hooks.example.com/x" }).timeout).toBe(3000);
    expect(() => prepareCheck(webhook, {})).toThrow(/webhookURL: is required/);
    expect(() => prepareCheck(webhook, { webhookURL: "ftp://hooks.example.com/" })).toThrow(/http or https/);
    expect(() => prepareCheck(webhook, { webhookURL: "https://u:p@hooks.example.com/" })).toThrow(/credentials/);
    expect(() => prepareCheck(webhook, { webhookURL: "https://h.example.com/", headers: "{oops" })).toThrow(
      /headers: is a string/,
    );
    expect(() => prepareCheck(webhook, { webhookURL: "https://h.example.com/", headers: { Host: "x" } })).toThrow(
      /must not set Host/,
    );
    expect(() =>
      prepareCheck(webhook, { webhookURL: "https://h.example.com/", headers: { "x-guardgate-signature": "forged" } }),
    ).toThrow(/must not set/);
  });
});
