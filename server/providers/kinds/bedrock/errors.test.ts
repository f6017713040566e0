import { describe, expect, it } from "vitest";
import { bedrockError } from "./errors.js";

const typed = (type: string) => ({ "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` });

describe("Bedrock errors", () => {
  it.each([
    ["ThrottlingException", "Too many requests, please wait before trying again.", 429, 429, "rate_limited"],
    ["ServiceUnavailableException", "Bedrock is unable to process your request.", 503, 503, "overloaded"],
    ["ModelNotReadyException", "Model is not ready.", 429, 503, "model_not_ready"],
    ["ValidationException", "Input is too long for requested model.", 400, 400, "context_length_exceeded"],
    ["ValidationException", "messages: roles must alternate", 400, 400, "invalid_request"],
    ["AccessDeniedException", "You don't have access to the model.", 403, 403, "permission_denied"],
    ["UnrecognizedClientException", "The security token included in the request is invalid.", 403, 401, "authentication_failed"],
  ])("%s (%s) → %i", (type, message, status, expected, code) => {
    const error = bedrockError(status, JSON.stringify({ message }), typed(type));
    expect(error).toMatchObject({ status: expected, code });
    expect(error.message).toBe(`Amazon Bedrock ${type}: ${message}`);
  });

  it("passes retry-after on a 429 and keeps only the first paragraph of a signature error", () => {
    expect(bedrockError(429, '{"message":"slow down"}', { ...typed("ThrottlingException"), "retry-after": "3" }).retryAfter).toBe(
      "3",
    );
    const canonical =
      "The request signature we calculated does not match.\n\nThe Canonical String for this request should have been\n'x-amz-security-token:SECRET-TOKEN'";
    const error = bedrockError(403, JSON.stringify({ message: canonical }), typed("InvalidSignatureException"));
    expect(error).toMatchObject({ status: 401, code: "authentication_failed" });
    expect(error.message).not.toContain("SECRET-TOKEN");
  });

  it("says the status when the body is not Bedrock's", () => {
    expect(bedrockError(502, "<html>bad gateway</html>", {})).toMatchObject({
      status: 502,
      code: null,
      message: "Amazon Bedrock: HTTP 502",
    });
  });
});
