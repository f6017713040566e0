import { describe, expect, it } from "vitest";
import { googleError } from "./errors.js";

const body = (code: number, status: string, message: string, details?: unknown[]) =>
  JSON.stringify({ error: { code, message, status, ...(details && { details }) } });

describe("Google errors in the gateway's terms", () => {
  it("429 RESOURCE_EXHAUSTED with retry-after from RetryInfo, rounded up", () => {
    const error = googleError(
      429,
      body(429, "RESOURCE_EXHAUSTED", "Quota exceeded", [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [] },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "36.2s" },
      ]),
      {},
      "Gemini API",
    );
    expect(error).toEqual({ status: 429, code: "rate_limited", message: "Gemini API: Quota exceeded", retryAfter: "37" });
  });

  it("UNAVAILABLE as 503, keeping a retry-after header when there is no RetryInfo", () => {
    expect(googleError(503, body(503, "UNAVAILABLE", "The model is overloaded."), { "retry-after": "5" }, "Vertex AI")).toEqual({
      status: 503,
      code: "unavailable",
      message: "Vertex AI: The model is overloaded.",
      retryAfter: "5",
    });
  });

  it("a prompt over the token limit as context_length_exceeded", () => {
    const message = "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).";
    expect(googleError(400, body(400, "INVALID_ARGUMENT", message), {}, "Gemini API")).toMatchObject({
      status: 400,
      code: "context_length_exceeded",
    });
    expect(googleError(400, body(400, "INVALID_ARGUMENT", "Bad field"), {}, "Gemini API").code).toBe("invalid_argument");
  });

  it("authentication: an invalid API key as 401, UNAUTHENTICATED 401, PERMISSION_DENIED 403", () => {
    const invalidKey = body(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" },
    ]);
    expect(googleError(400, invalidKey, {}, "Gemini API")).toMatchObject({ status: 401, code: "invalid_api_key" });
    expect(googleError(401, body(401, "UNAUTHENTICATED", "no"), {}, "Vertex AI")).toMatchObject({
      status: 401,
      code: "unauthenticated",
    });
    expect(googleError(403, body(403, "PERMISSION_DENIED", "no"), {}, "Vertex AI")).toMatchObject({
      status: 403,
      code: "permission_denied",
    });
  });

  it("a body that is not Google's keeps the status and says who answered", () => {
    expect(googleError(502, "<html>Bad gateway</html>", {}, "Vertex AI")).toEqual({
      status: 502,
      code: null,
      message: "Vertex AI: Vertex AI answered 502",
    });
  });
});
