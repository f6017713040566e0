/**
 * The process log as an operator reads it: each access line names the request by the id its answer
 * and its request-log record carry, and what went wrong (a deny, a check error or time-out, an
 * upstream 5xx) is a warn line naming guardrails, checks and providers, never a body or a secret.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

const UPSTREAM_KEY = "sk-upstream-secret-4b1d2c3e";
const SSN = "123-45-6789";
let upstream: FakeUpstream;
let gateway: ManagedTestGateway;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  gateway = await startManaged({
    file: { providers: [{ slug: "up", provider: "openai", base_url: upstream.baseUrl, api_key: UPSTREAM_KEY }] },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

type Line = Record<string, unknown> & { level: number; msg: string; reqId?: string };

function lines(): Line[] {
  return gateway.logLines.map((line) => JSON.parse(line) as Line);
}

/** The warn lines of one request, once its record is written. */
async function warnings(reqId: string): Promise<Line[]> {
  await gateway.app.guardgate.drainLogs();
  return lines().filter((line) => line.level === 40 && line.reqId === reqId);
}

async function send(config: unknown, content: string, headers: Record<string, string> = {}) {
  const answer = await gateway.call("POST", "/v1/chat/completions", {
    key: gateway.keys.api_key,
    body: chat("@up/gpt-4o-mini", content),
    headers: { "x-gateway-config": JSON.stringify(config), ...headers },
  });
  return { ...answer, id: answer.headers["x-gateway-request-id"] as string };
}

describe("the process log", () => {
  it("an access line carries the x-gateway-request-id, shared with the request log, and echoes the client's x-request-id", async () => {
    const answer = await send({}, "hello", { "x-request-id": "client-trace-77" });
    expect(answer.status).toBe(200);
    expect(answer.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    const access = lines().find((line) => line.msg === "request completed" && line.reqId === answer.id);
    expect(access).toMatchObject({ level: 30, clientRequestId: "client-trace-77", res: { statusCode: 200 } });
    await gateway.app.guardgate.drainLogs();
    await gateway.managed.sink.flush();
    const logs = await gateway.call("GET", "/admin/v1/logs", { key: gateway.keys.admin_key });
    expect(logs.body.data.map((entry: { id: string }) => entry.id)).toContain(answer.id);

    // A refusal before any guardrail ran names its request too.
    const refused = await gateway.call("POST", "/v1/chat/completions", { key: "gk-not-a-key", body: chat("@up/m") });
    const id = refused.headers["x-gateway-request-id"];
    expect(lines().find((line) => line.msg === "request completed" && line.reqId === id)).toMatchObject({
      res: { statusCode: 401 },
    });
  });

  it("a deny is a warn line naming the side, guardrail and failed check, without the text", async () => {
    const config = {
      input_guardrails: [{ id: "no-ssn", deny: true, regexMatch: { rule: "\\d{3}-\\d{2}-\\d{4}", not: true } }],
    };
    const answer = await send(config, `my ssn is ${SSN}`);
    expect(answer.status).toBe(446);
    const [warning, ...more] = await warnings(answer.id);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({
      route: "/v1/chat/completions",
      status: 446,
      denied: [{ side: "input", guardrail: "no-ssn", checks: ["default.regexMatch"] }],
      msg: expect.stringContaining("denied by input guardrail no-ssn"),
    });
    expect(gateway.logLines.join("\\n")).not.toContain(SSN);
  });

  it("a stream stopped by an output guardrail after text went out is a warn line naming it", async () => {
    const config = {
      stream_mode: "window",
      stream_window: 20,
      output_guardrails: [{ id: "no-secret", deny: true, regexMatch: { rule: "secret", not: true } }],
    };
    upstream.defaultText = `${"all is well here and now ".repeat(8)}the secret is out`;
    try {
      const answer = await gateway.call("POST", "/v1/chat/completions", {
        key: gateway.keys.api_key,
        body: chat("@up/gpt-4o-mini", "talk", { stream: true }),
        headers: { "x-gateway-config": JSON.stringify(config) },
      });
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("hooks_failed");
      const [warning] = await warnings(answer.headers["x-gateway-request-id"] as string);
      expect(warning).toMatchObject({ denied: [{ side: "output", guardrail: "no-secret", checks: ["default.regexMatch"] }] });
      expect(gateway.logLines.join("\n")).not.toContain("the secret is out");
    } finally {
      upstream.defaultText = undefined;
    }
  });

  it("check errors and time-outs are warn lines with guardrail and check ids and the error's name only", async () => {
    const config = {
      input_guardrails: [
        { id: "bad-pattern", regexMatch: { rule: "(unclosed" } },
        { id: "slow", "test.wait": { ms: 5000, timeout: 30 } },
      ],
    };
    const answer = await send(config, "a question with no secret");
    expect(answer.status).toBe(200);
    const [warning] = await warnings(answer.id);
    expect(warning?.check_errors).toEqual([
      { side: "input", guardrail: "bad-pattern", check: "default.regexMatch", error: "SyntaxError" },
      { side: "input", guardrail: "slow", check: "test.wait", error: "TimeoutError" },
    ]);
    expect(warning?.msg).toContain("check timed out: test.wait in slow");
    expect(warning?.msg).toContain("check errored: default.regexMatch in bad-pattern (SyntaxError)");
  });

  it("an upstream 5xx is a warn line naming the provider and status, never its body or the provider's key", async () => {
    upstream.enqueue({ kind: "json", status: 503, body: { error: { message: `overloaded; key ${UPSTREAM_KEY}` } } });
    const answer = await send({}, "hello again");
    expect(answer.status).toBe(503);
    const [warning] = await warnings(answer.id);
    expect(warning).toMatchObject({
      status: 503,
      upstream_errors: [{ provider: "@up", status: 503, target: "" }],
      msg: "request 503: upstream failed: @up 503",
    });
    expect(gateway.logLines.join("\\n")).not.toContain(UPSTREAM_KEY);
    expect(gateway.logLines.join("\\n")).not.toContain("overloaded");
  });

  it("a 446 of /v1/hooks/evaluate is a warn line too, under its route", async () => {
    const answer = await gateway.call("POST", "/v1/hooks/evaluate", {
      key: gateway.keys.api_key,
      body: {
        side: "input",
        request: chat("m", `ssn ${SSN}`),
        guardrails: [{ id: "hook-ssn", deny: true, regexMatch: { rule: "\\d{3}-\\d{2}", not: true } }],
      },
    });
    expect(answer.body.status).toBe(446);
    const id = answer.headers["x-gateway-request-id"] as string;
    expect(id).toBeTruthy();
    const [warning] = await warnings(id);
    expect(warning).toMatchObject({ route: "/v1/hooks/evaluate", denied: [{ guardrail: "hook-ssn" }] });
    // A request that went well writes none.
    const fine = await send({}, "all good");
    expect(await warnings(fine.id)).toEqual([]);
  });
});
