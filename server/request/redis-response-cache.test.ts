import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RedisServer, startRedis } from "../../test/support/redis-server.js";
import { connectRedis } from "../limits/redis-connection.js";
import { RedisResponseCache } from "./redis-response-cache.js";

let server: RedisServer;
const clients: Array<{ disconnect(): void }> = [];

beforeAll(async () => {
  server = await startRedis();
});

afterAll(async () => {
  await server?.stop();
});

afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

async function cache(options: { maxBytes?: number; prefix: string }) {
  const client = connectRedis({ url: server.url, commandTimeoutMs: 300 });
  clients.push(client);
  await client.connect();
  return new RedisResponseCache({ client, ...options });
}

const answer = (text: string) => ({ status: 200, text, headers: { "content-type": "application/json" } });

describe("Redis response cache", () => {
  it("serves an answer cached through one instance on another, until its max age", async () => {
    const [a, b] = [await cache({ prefix: "shared:" }), await cache({ prefix: "shared:" })];
    const key = a.key({ workspaceId: "ws", provider: "p", path: "/v1/chat/completions", body: "{}" });
    expect(key).toBe(b.key({ workspaceId: "ws", provider: "p", path: "/v1/chat/completions", body: "{}" }));
    expect(await b.get(key)).toBeUndefined();
    a.set(key, answer('{"a":1}'), 0.3);
    await expect.poll(() => b.get(key)).toEqual(answer('{"a":1}'));
    await expect.poll(() => b.get(key)).toBeUndefined();
  });

  it("holds its total size under the cap, evicting the oldest answers first", async () => {
    const small = await cache({ prefix: `cap${Math.random()}:`, maxBytes: 4000 });
    const body = "x".repeat(200);
    for (let i = 0; i < 20; i++) {
      small.set(`k${i}`, answer(body));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await expect.poll(async () => small.get("k19")).toBeDefined();
    expect(await small.totalBytes()).toBeLessThanOrEqual(4000);
    expect(await small.get("k0")).toBeUndefined();
    // An answer larger than an eighth of the cap is not kept.
    small.set("big", answer("y".repeat(600)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await small.get("big")).toBeUndefined();
  });

  it("is bypassed while Redis is down: lookups miss at once, stores are dropped", async () => {
    const shared = await cache({ prefix: "down:" });
    shared.set("k", answer("{}"));
    await expect.poll(() => shared.get("k")).toBeDefined();
    await server.pause();
    try {
      const started = Date.now();
      expect(await shared.get("k")).toBeUndefined();
      shared.set("other", answer("{}"));
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await server.start();
    }
    await expect.poll(async () => (await shared.get("k")) === undefined).toBe(true);
  });
});
