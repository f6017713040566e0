import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, startServer } from "../../test/support/http-server.js";
import { OutboundError } from "./errors.js";
import type { Resolver } from "./lookup.js";
import { isInternalHost, networkPolicy } from "./network-policy.js";
import { outboundRequest, outboundUrlProblem } from "./outbound.js";

const LOOPBACK = { allowLoopback: true };
const base = { timeout: 2_000, maxResponseBytes: 1024 };

/** A resolver that answers every name with the given addresses and counts its calls. */
function fixedResolver(...addresses: string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolver, { calls });
}

async function rejection(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return error as OutboundError;
}

let server: LocalServer;
let other: LocalServer;

beforeAll(async () => {
  other = await startServer((_req, res) => res.end("other"));
  server = await startServer((req, res) => {
    switch (req.url) {
      case "/hello":
        res.end("hello");
        break;
      case "/close":
        res.writeHead(200, { connection: "close" });
        res.end("closing");
        break;
      case "/hang":
        break;
      case "/big":
        res.writeHead(200, { "content-length": 4096 });
        res.end("x".repeat(4096));
        break;
      case "/big-chunked":
        res.writeHead(200);
        res.write("x".repeat(800));
        setTimeout(() => res.end("x".repeat(800)), 10);
        break;
      case "/redirect-same":
        res.writeHead(302, { location: "/hello" });
        res.end();
        break;
      case "/redirect-loop":
        res.writeHead(302, { location: "/redirect-loop" });
        res.end();
        break;
      case "/redirect-other":
        res.writeHead(302, { location: `${other.origin}/` });
        res.end();
        break;
      case "/echo":
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: req.method, body: req.body, ua: req.headers["user-agent"] }));
        break;
      default:
        res.statusCode = 404;
        res.end("no");
    }
  });
});

afterAll(async () => {
  await server.close();
  await other.close();
});

describe("network policy", () => {
  it("derives the policy from the settings; allowPrivateAddresses implies loopback", () => {
    expect(networkPolicy(undefined)).toMatchObject({ allowLoopback: false, allowPrivate: false, internalHosts: [] });
    expect(networkPolicy(undefined).advice).toContain("allowPrivateAddresses");
    expect(networkPolicy({ refusalAdvice: "set x" }).advice).toBe("set x");
    expect(networkPolicy({ allowPrivateAddresses: true })).toMatchObject({ allowLoopback: true, allowPrivate: true });
    expect(networkPolicy({ allowLoopback: true })).toMatchObject({ allowLoopback: true, allowPrivate: false });
  });

  it("matches internal hosts exactly or by subdomain pattern", () => {
    const policy = networkPolicy({ internalHosts: ["Hooks.Internal", "*.corp.example"] });
    expect(isInternalHost("hooks.internal", policy)).toBe(true);
    expect(isInternalHost("x.hooks.internal", policy)).toBe(false);
    expect(isInternalHost("a.corp.example", policy)).toBe(true);
    expect(isInternalHost("a.b.corp.example", policy)).toBe(true);
    expect(isInternalHost("corp.example", policy)).toBe(false);
    expect(isInternalHost("evilcorp.example", policy)).toBe(false);
  });
});

describe("outboundRequest", () => {
  it("refuses a loopback address unless a setting allows it, without connecting", async () => {
    const before = server.requests.length;
    const error = await rejection(outboundRequest(`${server.origin}/hello`, { ...base, settings: {} }));
    expect(error.code).toBe("outbound_address_refused");
    expect(error.message).toMatch(/127\.0\.0\.1 \(loopback\)/);
    expect(server.requests.length).toBe(before);

    const ok = await outboundRequest(`${server.origin}/hello`, { ...base, settings: LOOPBACK });
    expect(ok.status).toBe(200);
    expect(ok.body.toString()).toBe("hello");
    const viaPrivate = await outboundRequest(`${server.origin}/hello`, { ...base, settings: { allowPrivateAddresses: true } });
    expect(viaPrivate.status).toBe(200);
  });

  it("checks the addresses a host name resolves to, with the injected resolver", async () => {
    const resolver = fixedResolver("127.0.0.1");
    const url = `http://receiver.test:${server.port}/hello`;
    const refused = await rejection(outboundRequest(url, { ...base, settings: {}, resolver }));
    expect(refused.code).toBe("outbound_address_refused");
    expect(refused.message).toContain("receiver.test resolves to 127.0.0.1 (loopback)");

    const ok = await outboundRequest(url, { ...base, settings: LOOPBACK, resolver });
    expect(ok.body.toString()).toBe("hello");
    expect(resolver.calls).toContain("receiver.test");
  });

  it("lets listed internal hosts reach private and loopback addresses, and no other name", async () => {
    const resolver = fixedResolver("127.0.0.1");
    const settings = { internalHosts: ["hooks.internal"] };
    const ok = await outboundRequest(`http://hooks.internal:${server.port}/hello`, { ...base, settings, resolver });
    expect(ok.status).toBe(200);
    const refused = await rejection(
      outboundRequest(`http://other.internal:${server.port}/hello`, { ...base, settings, resolver }),
    );
    expect(refused.code).toBe("outbound_address_refused");
  });

  it("never reaches a cloud metadata address, whatever the settings", async () => {
    const settings = { allowPrivateAddresses: true, internalHosts: ["meta.test", "169.254.169.254"] };
    const literal = await rejection(outboundRequest("http://169.254.169.254/latest/meta-data/", { ...base, settings }));
    expect(literal.code).toBe("outbound_address_refused");
    const resolver = fixedResolver("169.254.169.254");
    const named = await rejection(outboundRequest("http://meta.test/", { ...base, settings, resolver }));
    expect(named.code).toBe("outbound_address_refused");
    expect(named.message).toContain("(metadata)");
  });

  it("checks the address again on every new connection (DNS rebinding)", async () => {
    // The name first resolves to the permitted local server, then to the metadata address.
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls++;
      return [{ address: calls === 1 ? "127.0.0.1" : "169.254.169.254", family: 4 }];
    };
    const url = `http://rebind.test:${server.port}/close`;
    const first = await outboundRequest(url, { ...base, settings: LOOPBACK, resolver: rebinding });
    expect(first.body.toString()).toBe("closing");
    const second = await rejection(outboundRequest(url, { ...base, settings: LOOPBACK, resolver: rebinding }));
    expect(second.code).toBe("outbound_address_refused");
    expect(calls).toBe(2);
  });

  it("refuses a host whose resolver finds nothing as a network failure", async () => {
    const resolver: Resolver = async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    };
    const error = await rejection(outboundRequest("http://nowhere.test/", { ...base, settings: LOOPBACK, resolver }));
    expect(error.code).toBe("outbound_network");
    expect(error.message).toContain("does not resolve");
  });

  it("times out a server that never answers", async () => {
    const started = Date.now();
    const error = await rejection(outboundRequest(`${server.origin}/hang`, { ...base, timeout: 150, settings: LOOPBACK }));
    expect(error.code).toBe("outbound_timeout");
    expect(error.name).toBe("TimeoutError");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("stops when the caller's signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(
      outboundRequest(`${server.origin}/hang`, { ...base, settings: LOOPBACK, signal: controller.signal }),
    );
    expect(error.code).toBe("outbound_aborted");
  });

  it("caps the size of the answer, declared or streamed", async () => {
    const declared = await rejection(outboundRequest(`${server.origin}/big`, { ...base, settings: LOOPBACK }));
    expect(declared.code).toBe("outbound_response_too_large");
    const streamed = await rejection(outboundRequest(`${server.origin}/big-chunked`, { ...base, settings: LOOPBACK }));
    expect(streamed.code).toBe("outbound_response_too_large");
    const status = await outboundRequest(`${server.origin}/big`, { ...base, settings: LOOPBACK, readBody: false });
    expect(status.status).toBe(200);
    expect(status.body.length).toBe(0);
  });

  it("follows no redirect unless asked, and only within the same origin", async () => {
    const none = await outboundRequest(`${server.origin}/redirect-same`, { ...base, settings: LOOPBACK });
    expect(none.status).toBe(302);
    const followed = await outboundRequest(`${server.origin}/redirect-same`, { ...base, settings: LOOPBACK, maxRedirects: 2 });
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${server.origin}/hello`);
    const elsewhere = await outboundRequest(`${server.origin}/redirect-other`, { ...base, settings: LOOPBACK, maxRedirects: 2 });
    expect(elsewhere.status).toBe(302);
    expect(other.requests.length).toBe(0);
    const loop = await outboundRequest(`${server.origin}/redirect-loop`, { ...base, settings: LOOPBACK, maxRedirects: 3 });
    expect(loop.status).toBe(302);
  });

  it("sends the method, body and a user agent", async () => {
    const answer = await outboundRequest(`${server.origin}/echo`, {
      ...base,
      method: "POST",
      body: '{"a":1}',
      headers: { "content-type": "application/json" },
      settings: LOOPBACK,
    });
    expect(JSON.parse(answer.body.toString())).toEqual({ method: "POST", body: '{"a":1}', ua: "guardgate" });
  });

  it("rejects URLs it cannot call, naming the problem", async () => {
    expect(outboundUrlProblem("ftp://example.com/")).toMatch(/http or https/);
    expect(outboundUrlProblem("https://user:pw@example.com/")).toMatch(/credentials/);
    expect(outboundUrlProblem("not a url")).toMatch(/valid absolute URL/);
    expect(outboundUrlProblem("https://example.com/hook?x=1")).toBeUndefined();
    const error = await rejection(outboundRequest("https://user:secret@example.com/x?token=t", { ...base, settings: {} }));
    expect(error.code).toBe("outbound_url_invalid");
    expect(error.message).not.toContain("secret");
    expect(error.message).not.toContain("token");
  });

  it("reports a refused connection as a network failure", async () => {
    const closed = await startServer((_req, res) => res.end());
    const origin = closed.origin;
    await closed.close();
    const error = await rejection(outboundRequest(`${origin}/`, { ...base, settings: LOOPBACK }));
    expect(error.code).toBe("outbound_network");
    expect(error.message).toContain("refused");
  });
});
