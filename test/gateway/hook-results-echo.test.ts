/**
 * `hook_results` never carry back the text a guardrail denied or redacted: a denied side's text is
 * withheld from every check's data, excerpts come from the text after transforms, `regexMatch`
 * reports where it matched rather than what, and each check's data is capped, in the answer and
 * in the request log alike.
 */
import { describe, expect, it } from "vitest";
import { DATA_MAX_BYTES } from "../../core/index.js";
import { gatewayHeaders, useGatewayWithUpstream } from "../support/gateway.js";

const fixture = useGatewayWithUpstream();

const TOKEN = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`;

async function chat(config: Record<string, unknown>, answer: string, content = "hello") {
  fixture.upstream.enqueue({ kind: "answer", text: answer });
  const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...gatewayHeaders({ provider: "openai", custom_host: fixture.upstream.baseUrl, ...config }),
    },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
  });
  const text = await response.text();
  const id = response.headers.get("x-gateway-request-id");
  const record = await fixture.gateway.logs.waitFor((r) => r.id === id);
  return { status: response.status, text, record: JSON.stringify(record) };
}

describe("a denied answer", () => {
  it("is echoed by no check: not in a sibling's excerpt, not in regexMatch's details, not in the log", async () => {
    const config = {
      output_guardrails: [
        { id: "no-token", deny: true, regexMatch: { rule: "ghp_[A-Za-z0-9]{36}", not: true } },
        { id: "length", wordCount: { minWords: 1 }, characterCount: { maxCharacters: 10_000 } },
      ],
    };
    const { status, text, record } = await chat(config, `here is the key ${TOKEN} for you`);
    expect(status).toBe(446);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("here is the key");
    expect(record).not.toContain(TOKEN);
    // The deny still says where the match was.
    const hooks = JSON.parse(text).hook_results.after_request_hooks;
    expect(hooks[0].checks[0].data.matchDetails).toMatchObject({ index: expect.any(Number), length: 40 });
    expect(hooks[0].checks[0].data.matchDetails).not.toHaveProperty("matchedText");
  });

  it("on the input side is not echoed back either", async () => {
    const config = {
      input_guardrails: [
        { id: "no-token", deny: true, regexMatch: { rule: "ghp_[A-Za-z0-9]{36}", not: true } },
        { id: "length", wordCount: { minWords: 1 } },
      ],
    };
    const { status, text } = await chat(config, "unused", `leak ${TOKEN} please`);
    expect(status).toBe(446);
    expect(text).not.toContain(TOKEN);
  });
});

describe("a side that only flags", () => {
  it("carries the match's text in regexMatch's details, as the peer's configs expect", async () => {
    const config = { output_guardrails: [{ id: "order", regexMatch: { rule: "order (?P<id>\\d+)" } }] };
    const { status, text } = await chat(config, "see order 1234 now");
    expect(status).toBe(200);
    const hooks = JSON.parse(text).hook_results.after_request_hooks;
    expect(hooks[0].checks[0].data.matchDetails).toEqual({
      matchedText: "order 1234",
      index: 4,
      length: 10,
      captures: ["1234"],
      groups: { id: "1234" },
    });
  });
});

describe("a redacted answer", () => {
  it("is excerpted after the redaction: the raw address appears nowhere in the results", async () => {
    const config = {
      output_guardrails: [
        { id: "redact", pii: { redact: true, categories: ["EMAIL_ADDRESS"] } },
        { id: "length", wordCount: { minWords: 1 } },
      ],
    };
    const { status, text, record } = await chat(config, "write to alice@example.com today");
    expect(status).toBe(200);
    expect(text).not.toContain("alice@example.com");
    expect(record).not.toContain("alice@example.com");
    const hooks = JSON.parse(text).hook_results.after_request_hooks;
    expect(hooks[1].checks[0].data.textExcerpt).toBe("write to [EMAIL_ADDRESS] today");
  });
});

describe("check data", () => {
  it(`is capped at ${DATA_MAX_BYTES} bytes per check, in the answer and the log`, async () => {
    const answer = "a".repeat(1_000_000);
    const config = { output_guardrails: [{ id: "runs", regexMatch: { rule: "a+" } }] };
    const { status, text, record } = await chat(config, answer);
    expect(status).toBe(200);
    const hooks = JSON.parse(text).hook_results.after_request_hooks;
    expect(JSON.stringify(hooks[0].checks[0].data).length).toBeLessThanOrEqual(DATA_MAX_BYTES);
    // The answer itself is the million characters; its hook results add little to it.
    expect(text.length).toBeLessThan(answer.length + 64 * 1024);
    expect(record.length).toBeLessThan(64 * 1024);
  });
});
