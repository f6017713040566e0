import { generateKeyPairSync } from "node:crypto";
import { jwtVerify } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import {
  clearServiceAccountTokens,
  type ServiceAccount,
  ServiceAccountKeyError,
  serviceAccountToken,
  type TokenExchange,
} from "./google-token.js";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const account: ServiceAccount = {
  client_email: "svc@project.iam.gserviceaccount.com",
  private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  token_uri: "https://tokens.test/token",
};

/** A token endpoint that verifies each assertion and grants numbered tokens living `lifetime` seconds. */
function endpoint(lifetime = 3600) {
  const posts: TokenExchange[] = [];
  const post = async (exchange: TokenExchange) => {
    posts.push(exchange);
    const assertion = new URLSearchParams(exchange.body).get("assertion") ?? "";
    const { payload } = await jwtVerify(assertion, publicKey, { issuer: account.client_email, audience: account.token_uri });
    expect(payload.scope).toBe("https://www.googleapis.com/auth/cloud-platform");
    return { accessToken: `token-${posts.length}`, expiresIn: lifetime };
  };
  return { posts, post };
}

beforeEach(() => clearServiceAccountTokens());

describe("service account tokens", () => {
  it("exchange an RS256 JWT signed with the account's key at its token_uri, as a form", async () => {
    const { posts, post } = endpoint();
    expect(await serviceAccountToken(account, post)).toBe("token-1");
    expect(posts[0]?.url).toBe(account.token_uri);
    expect(posts[0]?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(posts[0]?.body).get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
  });

  it("are reused until shortly before they expire, then asked again", async () => {
    const { posts, post } = endpoint(3600);
    const now = Date.now();
    expect(await serviceAccountToken(account, post, now)).toBe("token-1");
    expect(await serviceAccountToken(account, post, now + 3_000_000)).toBe("token-1");
    // Within the last minute of its life a token is no longer handed out.
    expect(await serviceAccountToken(account, post, now + 3_560_000)).toBe("token-2");
    expect(posts).toHaveLength(2);
  });

  it("are asked once for concurrent calls of one account", async () => {
    const { posts, post } = endpoint();
    const tokens = await Promise.all([1, 2, 3].map(() => serviceAccountToken(account, post)));
    expect(tokens).toEqual(["token-1", "token-1", "token-1"]);
    expect(posts).toHaveLength(1);
  });

  it("are kept apart for another key of the same account", async () => {
    const { post } = endpoint();
    await serviceAccountToken(account, post);
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const posts: TokenExchange[] = [];
    const token = await serviceAccountToken({ ...account, private_key: other }, async (exchange) => {
      posts.push(exchange);
      return { accessToken: "other", expiresIn: 3600 };
    });
    expect(token).toBe("other");
    expect(posts).toHaveLength(1);
  });

  it("refuse a private key that is not PEM, without saying it", async () => {
    const { posts, post } = endpoint();
    const error = await serviceAccountToken({ ...account, private_key: "not-a-key-0123456789" }, post).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceAccountKeyError);
    expect((error as Error).message).not.toContain("not-a-key");
    expect(posts).toHaveLength(0);
  });

  it("let the caller's error through, and ask again on the next call", async () => {
    let fail = true;
    const post = async () => {
      if (fail) throw new Error("refused");
      return { accessToken: "late", expiresIn: 3600 };
    };
    await expect(serviceAccountToken(account, post)).rejects.toThrow("refused");
    fail = false;
    expect(await serviceAccountToken(account, post)).toBe("late");
  });
});
