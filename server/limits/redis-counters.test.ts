import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedis } from "../../test/support/redis-server.js";
import { MemoryCounters } from "./counters.js";
import { LimitEnforcer, LimitError } from "./enforcer.js";
import { connectRedis } from "./redis-connection.js";
import { RedisCounters } from "./redis-counters.js";

let server: RedisServer;
const clients: Array<{ quit(): Promise<unknown>; disconnect(): void }> = [];

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
});

async function counters(options: { onError?: "open" | "closed"; prefix?: string } = {}) {
  const client = connectRedis({ url: server.url, commandTimeoutMs: 300 });
  clients.push(client);
  await client.connect();
  return new RedisCounters({
    client,
    prefix: options.prefix ?? `t${Math.random()}:`,
    ...(options.onError && { onError: options.onError }),
  });
}

const MINUTE = 60_000;

describe("Redis counters", () => {
  it("count a sliding window exactly as the in-memory counters do", async () => {
    const redis = await counters();
    const memory = new MemoryCounters();
    const t0 = 1_700_000_000_000 - (1_700_000_000_000 % MINUTE);
    const steps: Array<[number, number]> = [
      [0, 3],
      [10_000, 2],
      [59_000, 1],
      [61_000, 2],
      [90_000, 4],
      [200_000, 1],
    ];
    for (const [offset, amount] of steps) {
      const now = t0 + offset;
      expect(await redis.take("k", MINUTE, 5, amount, now)).toEqual(await memory.take("k", MINUTE, 5, amount, now));
      expect(await redis.count("k", MINUTE, now)).toBeCloseTo(await memory.count("k", MINUTE, now));
    }
    await redis.add("k", MINUTE, -1, t0 + 200_000);
    await memory.add("k", MINUTE, -1, t0 + 200_000);
    expect(await redis.count("k", MINUTE, t0 + 200_001)).toBeCloseTo(await memory.count("k", MINUTE, t0 + 200_001));
  });

  it("never admit more than the limit across instances taking at once", async () => {
    const prefix = `shared${Math.random()}:`;
    const instances = await Promise.all([counters({ prefix }), counters({ prefix }), counters({ prefix })]);
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => instances[i % 3]!.take("rpm", MINUTE, 10, 1, now)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results.find((r) => !r.allowed)?.retryAfterMs).toBeGreaterThan(0);
  });

  it("seed a total once and add to it, as budgets need", async () => {
    const [a, b] = [await counters({ prefix: "budget:" }), await counters({ prefix: "budget:" })];
    expect(await a.total("spend")).toBeUndefined();
    expect(await a.seedTotal("spend", 1.5)).toBe(1.5);
    expect(await b.seedTotal("spend", 99)).toBe(1.5);
    expect(await b.addTotal("spend", 0.25)).toBeCloseTo(1.75);
    expect(await a.total("spend")).toBeCloseTo(1.75);
  });

  it("while Redis is down: fail open admits, fail closed refuses with 503, neither hangs; both recover", async () => {
    const open = await counters({ onError: "open" });
    const closed = await counters({ onError: "closed" });
    const enforcer = new LimitEnforcer({ counters: closed, spend: async () => 0 });
    const scope = { label: "workspace", key: "ws", rate_limit: { requests_per_minute: 5 }, budget: null, spend: {} };
    await server.pause();
    try {
      const started = Date.now();
      expect((await open.take("k", MINUTE, 1, 1, Date.now())).allowed).toBe(true);
      const refusal = await enforcer.admit([scope], "m", undefined).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(LimitError);
      expect(refusal).toMatchObject({ status: 503, code: "limits_unavailable" });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await server.start();
    }
    await expect
      .poll(async () => (await closed.take("k2", MINUTE, 5, 1, Date.now()).catch(() => undefined))?.allowed, {
        timeout: 5000,
      })
      .toBe(true);
  });
});
