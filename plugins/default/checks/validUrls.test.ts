import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../../index.js";
import { type LocalServer, startServer } from "../../../test/support/http-server.js";
import { prepareCheck, runCheck } from "../../../test/support/check-harness.js";
import { findUrls, urlSyntaxProblem } from "../shared/url-syntax.js";
import validUrls, { createValidUrlsCheck } from "./validUrls.js";

/** A resolver from a table of names; unknown names are ENOTFOUND. Counts calls and concurrency. */
function tableResolver(table: Record<string, string[]>, delay = 0) {
  const stats = { calls: 0, inFlight: 0, maxInFlight: 0 };
  const resolver: Resolver = async (hostname) => {
    stats.calls++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    try {
      if (delay) await new Promise((r) => setTimeout(r, delay));
      const addresses = table[hostname];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      return addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
    } finally {
      stats.inFlight--;
    }
  };
  return { resolver, stats };
}

const PUBLIC = ["93.184.216.34"];

describe("finding URLs", () => {
  it("finds http(s) URLs and trims punctuation and brackets they did not open", () => {
    const text =
      "See https://example.com/a. Also (http://example.org/b), [docs](https://docs.example.com/x_(y)) and " +
      'HTTPS://EXAMPLE.NET/c?d=1&e=2#f! "https://q.example.com/z" https://example.com/a ftp://x.example.com';
    expect(findUrls(text)).toEqual([
      "https://example.com/a",
      "http://example.org/b",
      "https://docs.example.com/x_(y)",
      "HTTPS://EXAMPLE.NET/c?d=1&e=2#f",
      "https://q.example.com/z",
    ]);
    expect(findUrls("no links here, just http:// and https://")).toEqual([]);
  });

  it("judges syntax: IP literals and dotted names with an alphabetic top-level label", () => {
    for (const ok of [
      "https://example.com",
      "http://127.0.0.1:8080/x",
      "http://[::1]/",
      "https://xn--bcher-kva.example/",
      "https://bücher.de/",
    ]) {
      expect(urlSyntaxProblem(ok), ok).toBeUndefined();
    }
    for (const bad of [
      "http://localhost/",
      "http://exa_mple.com/",
      "http://-x.example.com/",
      "http://example.123/",
      "http://256.1.1.1/",
      "https://a..com/",
    ]) {
      expect(urlSyntaxProblem(bad), bad).toBeDefined();
    }
  });
});

describe("validUrls: syntax mode (the default)", () => {
  it("passes well-formed URLs without touching the network", async () => {
    const outcome = await runCheck(validUrls, {}, { text: "Read https://example.com/docs and http://10.0.0.1/admin." });
    expect(outcome.verdict).toBe(true);
    expect(outcome.data).toMatchObject({
      mode: "syntax",
      urlCount: 2,
      invalidCount: 0,
      validUrls: ["https://example.com/docs", "http://10.0.0.1/admin"],
    });
  });

  it("fails malformed URLs and names the reason", async () => {
    const outcome = await runCheck(validUrls, {}, { text: "Try http://localhost:3000/ or https://good.example.com" });
    expect(outcome.verdict).toBe(false);
    expect(outcome.data?.invalidUrls).toEqual([{ url: "http://localhost:3000/", reason: "syntax" }]);
  });

  it("passes a text with no URL, inverts with not", async () => {
    expect((await runCheck(validUrls, {}, { text: "" })).verdict).toBe(true);
    expect((await runCheck(validUrls, { not: true }, { text: "nothing" })).verdict).toBe(false);
    expect((await runCheck(validUrls, { not: true }, { text: "http://example" })).verdict).toBe(true);
  });

  it("stays linear on a megabyte of adversarial text", async () => {
    const texts = [
      `https://a.example.com/${")".repeat(1_000_000)}`,
      "http://".repeat(150_000),
      "https://x.example.com/a ".repeat(40_000),
      `https://${"a.".repeat(500_000)}com`,
    ];
    const started = Date.now();
    for (const text of texts) await runCheck(validUrls, {}, { text });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("validUrls: dns mode", () => {
  const names = { "good.example.com": PUBLIC, "intranet.example.com": ["10.1.2.3"], "meta.example.com": ["169.254.169.254"] };

  it("passes names that resolve and fails names that do not", async () => {
    const { resolver } = tableResolver(names);
    const check = createValidUrlsCheck({ resolver });
    const outcome = await runCheck(check, { mode: "dns" }, { text: "https://good.example.com/a https://missing.example.com/b" });
    expect(outcome.verdict).toBe(false);
    expect(outcome.data).toMatchObject({
      mode: "dns",
      validUrls: ["https://good.example.com/a"],
      invalidUrls: [{ url: "https://missing.example.com/b", reason: "not-found" }],
    });
  });

  it("onlyDNS: true means dns mode", async () => {
    const { resolver, stats } = tableResolver(names);
    const outcome = await runCheck(createValidUrlsCheck({ resolver }), { onlyDNS: true }, { text: "https://good.example.com" });
    expect(outcome.data?.mode).toBe("dns");
    expect(stats.calls).toBe(1);
  });

  it("refuses private, loopback and metadata addresses unless the settings allow them", async () => {
    const { resolver } = tableResolver(names);
    const check = createValidUrlsCheck({ resolver });
    const text = "https://intranet.example.com http://127.0.0.1:8080/ http://meta.example.com/";
    const strict = await runCheck(check, { mode: "dns", cacheTtl: 0 }, { text });
    expect(strict.data?.invalidUrls).toEqual([
      { url: "https://intranet.example.com", reason: "refused-address" },
      { url: "http://127.0.0.1:8080/", reason: "refused-address" },
      { url: "http://meta.example.com/", reason: "refused-address" },
    ]);
    const lenient = await runCheck(check, { mode: "dns", cacheTtl: 0 }, { text, settings: { allowPrivateAddresses: true } });
    expect(lenient.data?.invalidUrls).toEqual([{ url: "http://meta.example.com/", reason: "refused-address" }]);
  });

  it("gives each lookup a time limit", async () => {
    const { resolver } = tableResolver(names, 2_000);
    const started = Date.now();
    const outcome = await runCheck(
      createValidUrlsCheck({ resolver }),
      { mode: "dns", urlTimeout: 100 },
      { text: "https://good.example.com" },
    );
    expect(outcome.data?.invalidUrls).toEqual([{ url: "https://good.example.com", reason: "timeout" }]);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("caches results for cacheTtl, per network policy", async () => {
    const { resolver, stats } = tableResolver(names);
    const check = createValidUrlsCheck({ resolver });
    const text = "https://good.example.com https://missing.example.com";
    await runCheck(check, { mode: "dns" }, { text });
    await runCheck(check, { mode: "dns" }, { text });
    expect(stats.calls).toBe(2);
    await runCheck(check, { mode: "dns" }, { text, settings: { allowLoopback: true } });
    expect(stats.calls).toBe(4);
    await runCheck(check, { mode: "dns", cacheTtl: 0 }, { text });
    expect(stats.calls).toBe(6);
  });

  it("looks up at most maxUrls per text, concurrency at a time; the rest are not-checked and invalid", async () => {
    const table: Record<string, string[]> = {};
    const urls = Array.from({ length: 15 }, (_, i) => `https://h${i}.example.com/`);
    for (let i = 0; i < 15; i++) table[`h${i}.example.com`] = PUBLIC;
    const { resolver, stats } = tableResolver(table, 20);
    const outcome = await runCheck(
      createValidUrlsCheck({ resolver }),
      { mode: "dns", maxUrls: 10, concurrency: 3 },
      { text: urls.join(" ") },
    );
    expect(stats.calls).toBe(10);
    expect(stats.maxInFlight).toBe(3);
    expect(outcome.verdict).toBe(false);
    expect(outcome.data?.invalidCount).toBe(5);
    expect(outcome.data?.invalidUrls).toEqual(urls.slice(10).map((url) => ({ url, reason: "not-checked" })));
  });
});

describe("validUrls: http mode", () => {
  let server: LocalServer;
  let inFlight = 0;
  let maxInFlight = 0;

  beforeAll(async () => {
    server = await startServer(async (req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (req.url?.startsWith("/slow")) await new Promise((r) => setTimeout(r, 40));
        if (req.url === "/ok" || req.url?.startsWith("/slow")) res.writeHead(200);
        else if (req.url === "/get-only") res.writeHead(req.method === "HEAD" ? 405 : 200);
        else if (req.url === "/moved") res.writeHead(301, { location: "/ok" });
        else if (req.url === "/away") res.writeHead(302, { location: "https://elsewhere.example.com/" });
        else if (req.url === "/hang") return;
        else res.writeHead(404);
        res.end();
      } finally {
        inFlight--;
      }
    });
  });

  afterAll(() => server.close());

  const settings = { allowLoopback: true };

  it("passes URLs that answer below 400 and fails the others with their status", async () => {
    const text = [`${server.origin}/ok`, `${server.origin}/missing`, `${server.origin}/moved`, `${server.origin}/away`].join(" ");
    const outcome = await runCheck(createValidUrlsCheck(), { mode: "http" }, { text, settings });
    expect(outcome.verdict).toBe(false);
    expect(outcome.data?.validUrls).toEqual([`${server.origin}/ok`, `${server.origin}/moved`, `${server.origin}/away`]);
    expect(outcome.data?.invalidUrls).toEqual([{ url: `${server.origin}/missing`, reason: "http-404" }]);
    const methods = server.requests.filter((r) => r.url === "/ok").map((r) => r.method);
    expect(methods).toEqual(["HEAD", "HEAD"]);
  });

  it("falls back to GET when HEAD is not allowed", async () => {
    const outcome = await runCheck(createValidUrlsCheck(), { mode: "http" }, { text: `${server.origin}/get-only`, settings });
    expect(outcome.verdict).toBe(true);
    expect(server.requests.filter((r) => r.url === "/get-only").map((r) => r.method)).toEqual(["HEAD", "GET"]);
  });

  it("times out a URL that never answers", async () => {
    const outcome = await runCheck(
      createValidUrlsCheck(),
      { mode: "http", urlTimeout: 150 },
      { text: `${server.origin}/hang`, settings },
    );
    expect(outcome.data?.invalidUrls).toEqual([{ url: `${server.origin}/hang`, reason: "timeout" }]);
  });

  it("never calls a loopback URL without the setting", async () => {
    const before = server.requests.length;
    const outcome = await runCheck(createValidUrlsCheck(), { mode: "http" }, { text: `${server.origin}/ok` });
    expect(outcome.data?.invalidUrls).toEqual([{ url: `${server.origin}/ok`, reason: "refused-address" }]);
    expect(server.requests.length).toBe(before);
  });

  it("resolves names with the injected resolver and connects to what it checked", async () => {
    const { resolver } = tableResolver({ "site.example.com": ["127.0.0.1"] });
    const url = `http://site.example.com:${server.port}/ok`;
    const refused = await runCheck(createValidUrlsCheck({ resolver }), { mode: "http" }, { text: url });
    expect(refused.data?.invalidUrls).toEqual([{ url, reason: "refused-address" }]);
    const ok = await runCheck(createValidUrlsCheck({ resolver }), { mode: "http" }, { text: url, settings });
    expect(ok.verdict).toBe(true);
  });

  it("keeps at most `concurrency` requests in flight", async () => {
    maxInFlight = 0;
    const text = Array.from({ length: 8 }, (_, i) => `${server.origin}/slow${i}`).join(" ");
    const outcome = await runCheck(createValidUrlsCheck(), { mode: "http", concurrency: 2 }, { text, settings });
    expect(outcome.verdict).toBe(true);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    expect(maxInFlight).toBeGreaterThan(0);
  });
});

describe("validUrls: configuration", () => {
  it("applies the defaults and rejects contradictions", () => {
    expect(prepareCheck(validUrls, {}).parameters).toEqual({
      mode: "syntax",
      onlyDNS: false,
      not: false,
      maxUrls: 10,
      concurrency: 5,
      urlTimeout: 3000,
      cacheTtl: 300,
    });
    expect(() => prepareCheck(validUrls, { onlyDNS: true, mode: "http" })).toThrow(/onlyDNS: onlyDNS: true means mode "dns"/);
    expect(() => prepareCheck(validUrls, { mode: "ping" })).toThrow(/must be one of/);
    expect(() => prepareCheck(validUrls, { maxUrls: 1000 })).toThrow(/maxUrls/);
    expect(prepareCheck(validUrls, {}, "output").id).toBe("t.validUrls");
  });
});
