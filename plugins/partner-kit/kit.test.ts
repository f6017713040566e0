/**
 * The partner kit against a fake service on 127.0.0.1: every failure class is a PartnerError that
 * names the service and never carries the key; the address policy holds; answers are read strictly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../../test/support/http-server.js";
import { FAKE_SETTINGS, jsonBody, type PartnerFake, startPartnerFake } from "../../test/support/partners/fake.js";
import {
  callPartner,
  decisionData,
  maskSpans,
  OMITTED_TEXT,
  optionalField,
  PartnerError,
  partnerBaseUrl,
  partnerUrl,
  requiredCredential,
  requiredField,
  retryAfterSeconds,
} from "./index.js";

const SERVICE = { id: "acme", name: "Acme Guard" };
const KEY = "acme-key-0123456789abcdef";

let fake: PartnerFake;
beforeAll(async () => {
  fake = await startPartnerFake({
    authorized: (r: ReceivedRequest) => r.headers.authorization === `Bearer ${KEY}`,
    errorBody: (status, message) => ({ error: { message: `${message} (${status})` } }),
    answer: (r) => ({
      status: 200,
      body: { flagged: (jsonBody(r) as { text: string }).text.includes("bad") },
      headers: { "x-request-id": "req-1" },
    }),
  });
});
afterAll(() => fake.close());

const context = () => ({ signal: new AbortController().signal, settings: FAKE_SETTINGS });
const call = (text: string, key = KEY, timeout = 2000) =>
  callPartner(context(), SERVICE, {
    url: `${fake.origin}/v1/screen`,
    headers: { authorization: `Bearer ${key}` },
    json: { text },
    timeout,
  });

async function failure(promise: Promise<unknown>): Promise<PartnerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PartnerError);
  return error as PartnerError;
}

describe("callPartner", () => {
  it("returns the parsed answer, its latency and the vendor's request id", async () => {
    const answer = await call("a bad word");
    expect(answer.body).toEqual({ flagged: true });
    expect(answer.requestId).toBe("req-1");
    expect(answer.latencyMs).toBeGreaterThanOrEqual(0);
    expect(fake.requests.at(-1)?.headers["content-type"]).toBe("application/json");
  });

  it("turns each failure class into a PartnerError naming the service, without the key", async () => {
    const unauthorized = await failure(call("x", "wrong-key-0000000000"));
    expect(unauthorized).toMatchObject({ code: "partner_unauthorized", status: 401 });
    expect(unauthorized.message).toMatch(/^Acme Guard refused the credentials, HTTP 401: invalid credentials \(401\)/);

    fake.fail({ status: 403, message: "not allowed" });
    expect(await failure(call("x"))).toMatchObject({ code: "partner_forbidden", status: 403 });

    fake.fail({ status: 429, message: "slow down", headers: { "retry-after": "7" } });
    const limited = await failure(call("x"));
    expect(limited).toMatchObject({ code: "partner_rate_limited", retryAfter: 7 });
    expect(limited.message).toContain("retry after 7 s");

    fake.fail({ status: 503, message: "overloaded" });
    const down = await failure(call("x"));
    expect(down).toMatchObject({ code: "partner_unavailable", status: 503 });
    expect(down.message).toContain("Acme Guard failed, HTTP 503: overloaded (503)");

    fake.fail({ status: 400, message: "bad input" });
    expect(await failure(call("x"))).toMatchObject({ code: "partner_status", status: 400 });

    fake.fail("malformed");
    expect((await failure(call("x"))).message).toMatch(/Acme Guard answered HTTP 200 with a body that is not JSON/);

    fake.fail("hang");
    const slow = await failure(call("x", KEY, 150));
    expect(slow).toMatchObject({ code: "partner_timeout", message: "Acme Guard did not answer within the time limit of 150 ms" });
  });

  it("follows the gateway's address policy: loopback is refused unless allowed", async () => {
    const refused = await failure(
      callPartner({ signal: new AbortController().signal, settings: {} }, SERVICE, {
        url: `${fake.origin}/v1/screen`,
        json: {},
        timeout: 1000,
      }),
    );
    expect(refused.code).toBe("partner_network");
    expect(refused.message).toMatch(/^Acme Guard could not be called: .*127\.0\.0\.1/);
  });

  it("does not follow redirects", async () => {
    fake.fail({ status: 302, headers: { location: "http://169.254.169.254/latest" } });
    const redirected = await failure(call("x"));
    expect(redirected).toMatchObject({ code: "partner_status", status: 302 });
    expect(redirected.message).toContain("redirect, which is not followed");
  });

  it("reads retry-after in seconds or as a date", () => {
    expect(retryAfterSeconds("12")).toBe(12);
    expect(retryAfterSeconds("Wed, 21 Oct 2015 07:28:30 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(30);
    expect(retryAfterSeconds("soon")).toBeUndefined();
    expect(retryAfterSeconds(undefined)).toBeUndefined();
  });
});

describe("answers, credentials and data", () => {
  it("requires the fields a verdict depends on", () => {
    const answer = { results: [{ flagged: true, scores: { hate: 0.2 } }] };
    expect(requiredField(SERVICE, answer, ["results", 0, "flagged"], "boolean")).toBe(true);
    expect(optionalField(SERVICE, answer, ["results", 0, "missing"], "number")).toBeUndefined();
    expect(() => requiredField(SERVICE, answer, ["results", 1, "flagged"], "boolean")).toThrow(
      "Acme Guard's answer has no `results[1].flagged` (expected boolean)",
    );
    expect(() => requiredField(SERVICE, answer, ["results", 0, "scores"], "array")).toThrow(
      "Acme Guard's answer has a object for `results[0].scores` (expected array)",
    );
  });

  it("names the missing credential and takes the endpoint override", () => {
    expect(() => requiredCredential(SERVICE, {}, ["apiKey", "key"])).toThrow(
      "Acme Guard needs credentials.apiKey (or key): add it to the acme integration or the check's parameters.credentials",
    );
    expect(requiredCredential(SERVICE, { key: "k" }, ["apiKey", "key"])).toBe("k");
    expect(partnerBaseUrl(SERVICE, {}, "https://api.acme.example/")).toBe("https://api.acme.example");
    expect(partnerBaseUrl(SERVICE, { baseURL: "http://10.0.0.5:8080/acme/" }, "https://api.acme.example")).toBe(
      "http://10.0.0.5:8080/acme",
    );
    expect(partnerBaseUrl(SERVICE, { endpoint: "https://eu.acme.example" }, "https://x.example", ["endpoint"])).toBe(
      "https://eu.acme.example",
    );
    expect(() => partnerBaseUrl(SERVICE, { baseURL: "ftp://x" }, "https://x.example")).toThrow(
      "Acme Guard: credentials.baseURL must be an http or https URL",
    );
    expect(partnerUrl("https://a.example", "/v1/x", { "api-version": "2024-09-01", none: undefined })).toBe(
      "https://a.example/v1/x?api-version=2024-09-01",
    );
  });

  it("keeps the decision without the evaluated text", () => {
    const text = "My email is jane.doe@example.com, call me";
    const kept = decisionData(
      { flagged: true, categories: ["pii"], input: text, entities: [{ match: "jane.doe@example.com", type: "EMAIL" }] },
      text,
      ["input"],
    );
    expect(kept).toEqual({ flagged: true, categories: ["pii"], entities: [{ match: OMITTED_TEXT, type: "EMAIL" }] });
  });

  it("masks spans, clipping and resolving overlaps", () => {
    expect(
      maskSpans("call 555-0100 or mail a@b.co", [
        { start: 5, end: 13, label: "PHONE" },
        { start: 22, end: 99, label: "EMAIL" },
        { start: 6, end: 8, label: "NUMBER" },
      ]),
    ).toBe("call [PHONE] or mail [EMAIL]");
  });
});
