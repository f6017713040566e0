/** Which request headers hold secrets: by name, in any case, however many names have been seen. */
import { describe, expect, it } from "vitest";
import { headerHoldsSecret, isCredentialHeader } from "./credential-headers.js";
import { headerSecrets } from "./redact.js";

const SECRET = [
  "Authorization",
  "authorization",
  "Cookie",
  "x-api-key",
  "X-Goog-Api-Key",
  "x-amz-security-token",
  "x-auth-token",
];
const PLAIN = ["content-type", "x-stainless-lang", "user-agent", "x-request-id", "keyboard", "monkey-business"];

describe("headerHoldsSecret", () => {
  it("judges a name the same each time it is asked, in any case", () => {
    for (let round = 0; round < 3; round++) {
      expect(SECRET.map(headerHoldsSecret)).toEqual(SECRET.map(() => true));
      expect(PLAIN.map(headerHoldsSecret)).toEqual(PLAIN.map(() => false));
    }
  });

  it("still judges names correctly once thousands of distinct names were asked about", () => {
    for (let i = 0; i < 3_000; i++) headerHoldsSecret(`x-client-${i}`);
    expect(headerHoldsSecret("x-client-4000")).toBe(false);
    expect(headerHoldsSecret("x-client-4000-token")).toBe(true);
    expect(headerHoldsSecret("X-Client-4001-Secret")).toBe(true);
    expect(isCredentialHeader("x-gateway-config")).toBe(true);
  });
});

describe("headerSecrets", () => {
  it("collects the values of secret headers only, the token after an authorization scheme, and cookie values", () => {
    const secrets = headerSecrets(
      {
        authorization: "Bearer abcdefghij",
        cookie: "session=cookievalue1; theme=darkmode",
        "x-request-id": "request-123456",
        "content-type": "application/json",
      },
      new Set(),
    );
    expect([...secrets].sort()).toEqual(
      ["Bearer abcdefghij", "abcdefghij", "session=cookievalue1; theme=darkmode", "cookievalue1", "darkmode"].sort(),
    );
  });
});
