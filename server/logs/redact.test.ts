import { describe, expect, it } from "vitest";
import { REDACTED, redactCredentialKeys, redactedJson } from "./redact.js";

describe("redactedJson", () => {
  it("cuts every occurrence of each secret out of the text, at any depth", () => {
    const value = { a: "key sk-live-12345678 here", b: [{ c: "sk-live-12345678" }], d: "gk-abcdefgh" };
    const text = redactedJson(value, ["sk-live-12345678", "gk-abcdefgh", undefined]);
    expect(JSON.parse(text)).toEqual({ a: `key ${REDACTED} here`, b: [{ c: REDACTED }], d: REDACTED });
  });

  it("finds a secret whose JSON form is escaped", () => {
    const secret = 'pa"ss\\word-long';
    const text = redactedJson({ note: `it is ${secret}!` }, [secret]);
    expect(JSON.parse(text)).toEqual({ note: `it is ${REDACTED}!` });
  });

  it("leaves text that only looks like a secret after an escape, and stays valid JSON", () => {
    // "\n" + "abcdefgh" is "\\nabcdefgh" in JSON: the secret "nabcdefgh" is not in the value.
    const value = { text: "line\nabcdefgh", other: "nabcdefgh" };
    const text = redactedJson(value, ["nabcdefgh"]);
    expect(JSON.parse(text)).toEqual({ text: "line\nabcdefgh", other: REDACTED });
  });

  it("cuts a secret after an escaped backslash (an even run of backslashes)", () => {
    const text = redactedJson({ path: "C:\\nabcdefgh" }, ["nabcdefgh"]);
    expect(JSON.parse(text)).toEqual({ path: `C:\\${REDACTED}` });
  });

  it("replaces the values of credential-like keys at any depth, in any case", () => {
    const value = { request: { headers: { Authorization: "Bearer abc" }, messages: [{ API_KEY: "k1", text: "hi" }] } };
    expect(JSON.parse(redactedJson(value, []))).toEqual({
      request: { headers: { Authorization: REDACTED }, messages: [{ API_KEY: REDACTED, text: "hi" }] },
    });
  });

  it("keeps a value whose text only mentions a credential-like key", () => {
    const value = { note: 'send {"token": 1}', tokens: 3 };
    expect(JSON.parse(redactedJson(value, []))).toEqual(value);
  });

  it("ignores secrets shorter than 8 characters", () => {
    expect(JSON.parse(redactedJson({ a: "short1 x" }, ["short1"]))).toEqual({ a: "short1 x" });
  });
});

describe("redactCredentialKeys", () => {
  it("replaces the values of credential-like keys in a copy", () => {
    const value = { headers: { Authorization: "Bearer x", "x-api-key": "k" }, api_key: "k", safe: 1 };
    expect(redactCredentialKeys(value)).toEqual({
      headers: { Authorization: REDACTED, "x-api-key": REDACTED },
      api_key: REDACTED,
      safe: 1,
    });
    expect(value.api_key).toBe("k");
  });
});
