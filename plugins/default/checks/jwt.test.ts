import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, sendJson, startServer } from "../../../test/support/http-server.js";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import { createJwtCheck } from "./jwt.js";

type Key = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

let server: LocalServer;
let published: JWK[] = [];
let rsa: { privateKey: Key; jwk: JWK };
let ec: { privateKey: Key; jwk: JWK };
let rotated: { privateKey: Key; jwk: JWK };
let impostor: { privateKey: Key };
const settings = { allowLoopback: true };

async function keyPair(alg: string, kid: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

function sign(key: { privateKey: Key }, kid: string, alg = "RS256", build?: (jwt: SignJWT) => SignJWT): Promise<string> {
  let jwt = new SignJWT({ scope: "chat" })
    .setProtectedHeader({ alg, kid })
    .setSubject("user-42")
    .setIssuer("https://auth.test/")
    .setAudience("guardgate")
    .setIssuedAt()
    .setExpirationTime("10m");
  if (build) jwt = build(jwt);
  return jwt.sign(key.privateKey);
}

function fetches(): number {
  return server.requests.filter((r) => r.url === "/jwks").length;
}

beforeAll(async () => {
  rsa = await keyPair("RS256", "rsa-1");
  ec = await keyPair("ES256", "ec-1");
  rotated = await keyPair("RS256", "rsa-2");
  impostor = await keyPair("RS256", "rsa-1");
  published = [rsa.jwk, ec.jwk];
  server = await startServer((req, res) => {
    if (req.url === "/jwks") return sendJson(res, 200, { keys: published });
    if (req.url === "/down") return sendJson(res, 500, { error: "down" });
    if (req.url === "/html") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html>");
    }
    if (req.url === "/slow") return;
    sendJson(res, 404, {});
  });
});

afterAll(() => server.close());

const jwks = () => `${server.origin}/jwks`;

async function check(
  headers: Record<string, string>,
  parameters: Record<string, unknown> = {},
  instance = createJwtCheck({ refetchCooldown: 0 }),
) {
  return runCheck(instance, { jwksUri: jwks(), ...parameters }, { headers, settings });
}

describe("jwt: accepted tokens", () => {
  it("verifies a bearer token from the authorization header, whatever its case", async () => {
    const token = await sign(rsa, "rsa-1");
    const outcome = await check({ Authorization: `Bearer ${token}` }, { issuer: "https://auth.test/", audience: "guardgate" });
    expect(outcome.verdict).toBe(true);
    expect(outcome.data).toMatchObject({ reason: null, algorithm: "RS256", keyId: "rsa-1", subject: "user-42" });
    expect(JSON.stringify(outcome)).not.toContain(token);
    expect((await check({ AUTHORIZATION: `bearer ${token}` }, { headerKey: "Authorization" })).verdict).toBe(true);
  });

  it("reads a bare token from a header of its own, and other algorithms of the set", async () => {
    const token = await sign(ec, "ec-1", "ES256");
    const outcome = await check({ "X-User-Token": token }, { headerKey: "x-user-token", algorithms: ["ES256"] });
    expect(outcome.verdict).toBe(true);
  });
});

describe("jwt: refused tokens fail, never error", () => {
  it.each([
    [{}, "missing_token"],
    [{ authorization: "Basic dXNlcjpwYXNz" }, "malformed_token"],
    [{ authorization: "Bearer" }, "malformed_token"],
    [{ authorization: "Bearer not-a-jwt" }, "malformed_token"],
    [{ authorization: "Bearer a.b.c" }, "malformed_token"],
    [{ authorization: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." }, "algorithm_not_allowed"],
  ])("headers %j → %s", async (headers, reason) => {
    const outcome = await check(headers as Record<string, string>);
    expect(outcome.verdict).toBe(false);
    expect(outcome.data?.reason).toBe(reason);
  });

  it("refuses expired tokens, wrong signatures, issuers, audiences and algorithms", async () => {
    const expired = await sign(rsa, "rsa-1", "RS256", (j) =>
      j.setIssuedAt(Math.floor(Date.now() / 1000) - 7200).setExpirationTime("-1h"),
    );
    expect((await check({ authorization: `Bearer ${expired}` })).data?.reason).toBe("expired");

    const forged = await sign(impostor, "rsa-1");
    expect((await check({ authorization: `Bearer ${forged}` })).data?.reason).toBe("signature_invalid");

    const token = await sign(rsa, "rsa-1");
    const issuer = await check({ authorization: `Bearer ${token}` }, { issuer: "https://other.test/" });
    expect(issuer.data).toMatchObject({ reason: "claim_invalid", claim: "iss" });
    const audience = await check({ authorization: `Bearer ${token}` }, { audience: ["billing", "admin"] });
    expect(audience.data).toMatchObject({ reason: "claim_invalid", claim: "aud" });
    const algorithm = await check({ authorization: `Bearer ${token}` }, { algorithms: ["ES256"] });
    expect(algorithm.data?.reason).toBe("algorithm_not_allowed");
  });

  it("applies maxTokenAge (1 day by default) and needs iat for it", async () => {
    const now = Math.floor(Date.now() / 1000);
    const old = await sign(rsa, "rsa-1", "RS256", (j) => j.setIssuedAt(now - 2 * 86400).setExpirationTime(now + 600));
    expect((await check({ authorization: `Bearer ${old}` })).data).toMatchObject({ reason: "expired", claim: "iat" });
    expect((await check({ authorization: `Bearer ${old}` }, { maxTokenAge: "3d" })).verdict).toBe(true);
    const recent = await sign(rsa, "rsa-1", "RS256", (j) => j.setIssuedAt(now - 600).setExpirationTime(now + 600));
    expect((await check({ authorization: `Bearer ${recent}` }, { maxTokenAge: 300 })).verdict).toBe(false);
    const noIat = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: "rsa-1" })
      .setExpirationTime(now + 600)
      .sign(rsa.privateKey);
    expect((await check({ authorization: `Bearer ${noIat}` })).data).toMatchObject({ reason: "claim_invalid", claim: "iat" });
  });
});

describe("jwt: the key set", () => {
  it("is fetched once and cached per URI", async () => {
    const instance = createJwtCheck();
    const before = fetches();
    const token = await sign(rsa, "rsa-1");
    for (let i = 0; i < 3; i++) expect((await check({ authorization: `Bearer ${token}` }, {}, instance)).verdict).toBe(true);
    expect(fetches() - before).toBe(1);
  });

  it("is fetched again when cacheMaxAge is 0", async () => {
    const instance = createJwtCheck();
    const before = fetches();
    const token = await sign(rsa, "rsa-1");
    await check({ authorization: `Bearer ${token}` }, { cacheMaxAge: 0 }, instance);
    await check({ authorization: `Bearer ${token}` }, { cacheMaxAge: 0 }, instance);
    expect(fetches() - before).toBe(2);
  });

  it("is fetched once more for an unknown kid, so rotated keys verify", async () => {
    const instance = createJwtCheck({ refetchCooldown: 0 });
    const first = await sign(rsa, "rsa-1");
    expect((await check({ authorization: `Bearer ${first}` }, {}, instance)).verdict).toBe(true);
    const before = fetches();
    published = [rsa.jwk, ec.jwk, rotated.jwk];
    try {
      const next = await sign(rotated, "rsa-2");
      expect((await check({ authorization: `Bearer ${next}` }, {}, instance)).verdict).toBe(true);
      expect(fetches() - before).toBe(1);
      const unknown = await sign(rotated, "rsa-9");
      const refused = await check({ authorization: `Bearer ${unknown}` }, {}, instance);
      expect(refused.data?.reason).toBe("no_matching_key");
      expect(fetches() - before).toBe(2);
    } finally {
      published = [rsa.jwk, ec.jwk];
    }
  });

  it("does not refetch for unknown kids during the cooldown", async () => {
    const instance = createJwtCheck({ refetchCooldown: 60_000 });
    const before = fetches();
    await check({ authorization: `Bearer ${await sign(rsa, "rsa-1")}` }, {}, instance);
    for (let i = 0; i < 3; i++) await check({ authorization: `Bearer ${await sign(rotated, `x-${i}`)}` }, {}, instance);
    expect(fetches() - before).toBe(1);
  });

  it("that cannot be fetched is a check error", async () => {
    const token = `Bearer ${await sign(rsa, "rsa-1")}`;
    await expect(check({ authorization: token }, { jwksUri: `${server.origin}/down` })).rejects.toThrow(/answered HTTP 500/);
    await expect(check({ authorization: token }, { jwksUri: `${server.origin}/html` })).rejects.toThrow(/did not answer JSON/);
    const slow = createJwtCheck({ fetchTimeout: 150 });
    await expect(check({ authorization: token }, { jwksUri: `${server.origin}/slow` }, slow)).rejects.toMatchObject({
      code: "ERR_JWKS_TIMEOUT",
    });
  });

  it("on a loopback address is refused without the setting", async () => {
    const token = `Bearer ${await sign(rsa, "rsa-1")}`;
    await expect(
      runCheck(createJwtCheck(), { jwksUri: jwks() }, { headers: { authorization: token }, settings: {} }),
    ).rejects.toMatchObject({ code: "outbound_address_refused" });
  });
});

describe("jwt: configuration", () => {
  it("applies the defaults and rejects bad parameters and the output side", () => {
    const instance = createJwtCheck();
    expect(prepareCheck(instance, { jwksUri: "https://auth.example.com/jwks" }).parameters).toEqual({
      jwksUri: "https://auth.example.com/jwks",
      headerKey: "authorization",
      cacheMaxAge: 86400,
      clockTolerance: 5,
      maxTokenAge: "1d",
    });
    expect(() => prepareCheck(instance, {})).toThrow(/jwksUri: is required/);
    expect(() => prepareCheck(instance, { jwksUri: "ftp://auth.example.com/jwks" })).toThrow(/http or https/);
    expect(() => prepareCheck(instance, { jwksUri: "https://a.example.com/", maxTokenAge: "soon" })).toThrow(/maxTokenAge/);
    expect(() => prepareCheck(instance, { jwksUri: "https://a.example.com/", algorithms: ["HS256"] })).toThrow(/algorithms/);
    expect(() => prepareCheck(instance, { jwksUri: "https://a.example.com/" }, "output")).toThrow(/output side/);
  });
});
