/**
 * Unknown API keys are throttled per source address on every route that takes a key: the model and
 * hook routes, the admin API and the console's sign-in (`GET /admin/v1/me`). Tested on counts and
 * statuses (429 with retry-after), never on timing.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { chat, type ManagedTestGateway, startManaged } from "../support/managed.js";

const gateways: ManagedTestGateway[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) await gateway.close();
});

async function start(options: Parameters<typeof startManaged>[0] = {}) {
  const gateway = await startManaged(options);
  gateways.push(gateway);
  return gateway;
}

const randomKey = () => `gg-${randomBytes(24).toString("hex")}`;

/** A request from `address` (or through a proxy at 127.0.0.1 naming `forwardedFor`). */
async function send(
  gateway: ManagedTestGateway,
  url: string,
  key: string,
  from: { address: string; forwardedFor?: string },
): Promise<{ status: number; retryAfter: string | undefined; code: string | undefined }> {
  const post = url.startsWith("/v1/chat");
  const response = await gateway.app.inject({
    method: post ? "POST" : "GET",
    url,
    remoteAddress: from.address,
    headers: { "x-gateway-api-key": key, ...(from.forwardedFor && { "x-forwarded-for": from.forwardedFor }) },
    ...(post && { payload: chat("@mock/m") }),
  });
  const body = response.body ? (JSON.parse(response.body) as { error?: { code?: string } }) : {};
  return {
    status: response.statusCode,
    retryAfter: response.headers["retry-after"] as string | undefined,
    code: body.error?.code,
  };
}

type Line = { level: number; msg: string; source?: string; failures?: number };

describe("throttling unknown API keys", () => {
  it("1,000 random keys from one address: ten are answered 401, the rest 429 with retry-after, and each failure is logged at warn", async () => {
    const gateway = await start();
    const attacker = { address: "203.0.113.7" };
    const keys = Array.from({ length: 1000 }, randomKey);
    const answers = [];
    for (let i = 0; i < keys.length; i += 50) {
      answers.push(
        ...(await Promise.all(keys.slice(i, i + 50).map((key) => send(gateway, "/v1/chat/completions", key, attacker)))),
      );
    }
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(990);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(answer.code).toBe("too_many_failed_keys");
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
    }
    // While stopped, the address's keys are not looked at, valid ones included; other addresses go on.
    expect((await send(gateway, "/v1/chat/completions", gateway.keys.api_key, attacker)).status).toBe(429);
    expect((await send(gateway, "/v1/chat/completions", gateway.keys.api_key, { address: "198.51.100.20" })).status).toBe(200);
    expect((await send(gateway, "/v1/chat/completions", randomKey(), { address: "198.51.100.20" })).status).toBe(401);

    const lines = gateway.logLines.map((line) => JSON.parse(line) as Line);
    const warnings = lines.filter((line) => line.level === 40 && line.source === attacker.address);
    expect(warnings).toHaveLength(10);
    expect(warnings.filter((line) => line.msg === "unknown API key")).toHaveLength(9);
    expect(warnings.at(-1)?.msg).toBe("unknown API keys: 203.0.113.7 sent 10; its keys are refused for 60 s");
    const log = gateway.logLines.join("\n");
    for (const key of keys.slice(0, 20)) expect(log).not.toContain(key);
  });

  it("the admin API and the console's sign-in count on the same throttle as the model routes", async () => {
    const gateway = await start();
    const from = { address: "198.51.100.9" };
    for (let i = 0; i < 5; i++) expect((await send(gateway, "/v1/chat/completions", randomKey(), from)).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await send(gateway, "/admin/v1/me", randomKey(), from)).status).toBe(401);
    const signIn = await send(gateway, "/admin/v1/me", gateway.keys.admin_key, from);
    expect(signIn).toMatchObject({ status: 429, code: "too_many_failed_keys" });
    expect(Number(signIn.retryAfter)).toBeGreaterThan(0);
    expect((await send(gateway, "/admin/v1/me", gateway.keys.admin_key, { address: "198.51.100.10" })).status).toBe(200);
  });

  it("behind a trusted proxy, the source is the client X-Forwarded-For names", async () => {
    const gateway = await start({ file: { settings: { trust_proxy: ["127.0.0.1"] } } });
    const client = { address: "127.0.0.1", forwardedFor: "192.0.2.1" };
    for (let i = 0; i < 10; i++) await send(gateway, "/v1/chat/completions", randomKey(), client);
    expect((await send(gateway, "/v1/chat/completions", randomKey(), client)).status).toBe(429);
    // Another client behind the same proxy is not held by it.
    expect((await send(gateway, "/v1/chat/completions", randomKey(), { ...client, forwardedFor: "192.0.2.2" })).status).toBe(401);
  });

  it("wrong metrics tokens count on the same throttle: ten are 401, then 429 with retry-after, the right token included", async () => {
    const token = "metrics-token-0123456789";
    const gateway = await start({ file: { metrics: { token } } });
    const scrape = (bearer: string, address: string) =>
      gateway.app.inject({
        method: "GET",
        url: "/metrics",
        remoteAddress: address,
        headers: { authorization: `Bearer ${bearer}` },
      });
    const guesser = "203.0.113.44";
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await scrape(randomKey(), guesser)).statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    const stopped = await scrape(token, guesser);
    expect(stopped.statusCode).toBe(429);
    expect(JSON.parse(stopped.body)).toMatchObject({ error: { code: "too_many_failed_keys" } });
    expect(Number(stopped.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // The source's API keys wait too; other addresses scrape on.
    expect((await send(gateway, "/admin/v1/me", gateway.keys.admin_key, { address: guesser })).status).toBe(429);
    expect((await scrape(token, "198.51.100.30")).statusCode).toBe(200);
  });

  it("refuses a trust_proxy entry that is no address, naming it", async () => {
    await expect(start({ file: { settings: { trust_proxy: ["10.0.0.0/8", "proxy.local"] } } })).rejects.toThrow(
      'settings.trust_proxy[1]: "proxy.local" is not an IP address or CIDR range',
    );
  });
});
