import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CheckResult, createEngine, type Engine } from "../../../index.js";
import { type LocalServer, sendJson, startServer } from "../../../test/support/http-server.js";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import { isCredentialHeader } from "../shared/evaluation-context.js";
import log from "./log.js";

let sink: LocalServer;
let engine: Engine;

beforeAll(async () => {
  sink = await startServer((req, res) => {
    if (req.url === "/down") return sendJson(res, 503, { error: "down" });
    if (req.url === "/hang") return;
    if (req.url === "/moved") {
      res.writeHead(301, { location: "/ok" });
      return res.end();
    }
    sendJson(res, 202, { ok: true });
  });
  engine = await createEngine({ settings: { allowLoopback: true } });
});

afterAll(async () => {
  await sink.close();
  await engine.close();
});

const request = { model: "gpt-4o", messages: [{ role: "user", content: "hello there" }] };

async function evaluate(parameters: Record<string, unknown>, headers: Record<string, string> = {}) {
  const evaluation = await engine.evaluate({
    side: "input",
    requestType: "chatComplete",
    request,
    headers,
    metadata: { user: "u1" },
    guardrails: [{ id: "gr-log", checks: [{ id: "default.log", parameters }] }],
  });
  return { evaluation, result: evaluation.results[0]?.checks[0] as CheckResult };
}

describe("log", () => {
  it("posts the evaluation without credential headers and passes", async () => {
    const { result } = await evaluate(
      { logURL: `${sink.origin}/ok?token=sink-secret`, headers: { "x-sink": "a" } },
      {
        Authorization: "Bearer caller-token",
        "x-gateway-api-key": "gw-key",
        "x-gateway-config": '{"cache":{}}',
        "x-api-key": "provider-key",
        cookie: "session=abc",
        "x-goog-api-key": "g-key",
        "user-agent": "sdk/1.0",
        "x-request-id": "req-1",
      },
    );
    expect(result.verdict).toBe(true);
    expect(result.error).toBeUndefined();
    expect(result.data).toMatchObject({ logged: true, status: 202, logUrl: `${sink.origin}/ok` });
    expect(JSON.stringify(result)).not.toContain("sink-secret");

    const sent = sink.requests.at(-1);
    expect(sent?.headers["x-sink"]).toBe("a");
    const entry = JSON.parse(sent?.body ?? "{}");
    expect(entry).toMatchObject({
      guardrailId: "gr-log",
      side: "input",
      requestType: "chatComplete",
      text: "hello there",
      request: { json: request },
      metadata: { user: "u1" },
      headers: { "user-agent": "sdk/1.0", "x-request-id": "req-1" },
    });
    expect(Object.keys(entry.headers).sort()).toEqual(["user-agent", "x-request-id"]);
    expect(typeof entry.loggedAt).toBe("string");
    for (const secret of ["caller-token", "gw-key", "provider-key", "session=abc", "g-key"])
      expect(sent?.body).not.toContain(secret);
  });

  it("a failing sink is a check error: status, redirect, time-out", async () => {
    const down = await evaluate({ logURL: `${sink.origin}/down` });
    expect(down.result.error).toMatchObject({ message: expect.stringContaining("answered HTTP 503") });
    expect(down.evaluation.status).toBe(200);
    const moved = await evaluate({ logURL: `${sink.origin}/moved` });
    expect(moved.result.error).toMatchObject({ message: expect.stringContaining("redirects are not followed") });
    const slow = await evaluate({ logURL: `${sink.origin}/hang`, timeout: 150 });
    expect(slow.result.error).toMatchObject({ name: "TimeoutError" });
  });

  it("fails the guardrail on a sink error only with failOnError", async () => {
    const { evaluation } = await evaluate({ logURL: `${sink.origin}/down`, failOnError: true });
    // The guardrail fails; without deny the request goes on with status 246.
    expect(evaluation.verdict).toBe(false);
    expect(evaluation.status).toBe(246);
  });

  it("refuses a loopback sink without the setting", async () => {
    await expect(runCheck(log, { logURL: `${sink.origin}/ok` })).rejects.toMatchObject({ code: "outbound_address_refused" });
  });

  it("validates the URL and headers at load time", () => {
    expect(prepareCheck(log, { logURL: "https://logs.example.com/" }).parameters.timeout).toBe(3000);
    expect(() => prepareCheck(log, {})).toThrow(/logURL: is required/);
    expect(() => prepareCheck(log, { logURL: "file:///etc/passwd" })).toThrow(/http or https/);
    expect(() => prepareCheck(log, { logURL: "https://l.example.com/", headers: { "content-length": "1" } })).toThrow(
      /must not set/,
    );
  });

  it("recognises credential headers by name", () => {
    for (const name of [
      "Authorization",
      "x-gateway-virtual-key",
      "X-Api-Key",
      "x-amz-security-token",
      "x-auth-token",
      "set-cookie",
    ]) {
      expect(isCredentialHeader(name)).toBe(true);
    }
    for (const name of ["user-agent", "x-request-id", "content-type", "anthropic-version", "accept"]) {
      expect(isCredentialHeader(name)).toBe(false);
    }
  });
});
