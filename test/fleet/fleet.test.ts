/**
 * A fleet as operators run it: one Postgres, one Redis and three `guardgate serve` processes (the
 * built command) sharing them, with traffic sent round-robin by the official OpenAI client.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI, { APIError } from "openai";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { type PostgresServer, startPostgres } from "../support/postgres-server.js";
import { type RedisServer, startRedis } from "../support/redis-server.js";
import { cleanEnv, type ServeProcess, spawnServe } from "../support/serve-process.js";

interface Instance extends ServeProcess {
  dir: string;
}

let postgres: PostgresServer;
let redis: RedisServer;
let storeUrl: string;
const instances: Instance[] = [];
const secretKey = randomBytes(32).toString("hex");
let keys: { admin_key: string; api_key: string; workspace_id: string };
let upstream: FakeUpstream;

async function serve(): Promise<Instance> {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-fleet-"));
  const started = await spawnServe(["--data-dir", dir, "--store", storeUrl, "--redis", redis.url], {
    env: { ...cleanEnv(), GUARDGATE_SECRET_KEY: secretKey },
  });
  const instance = { ...started, dir };
  instances.push(instance);
  return instance;
}

function client(instance: Instance, config?: unknown): OpenAI {
  return new OpenAI({
    baseURL: `${instance.url}/v1`,
    apiKey: "sk-client-own-key",
    maxRetries: 0,
    defaultHeaders: {
      "x-gateway-api-key": keys.api_key,
      ...(config !== undefined && { "x-gateway-config": JSON.stringify(config) }),
    },
  });
}

/** Sends one chat request; resolves to the HTTP status and the gateway's request id. */
async function chat(
  instance: Instance,
  text: string,
  config?: unknown,
  model = "@mock/mock-model",
): Promise<{ status: number; id: string | null }> {
  try {
    const { response } = await client(instance, config)
      .chat.completions.create({ model, messages: [{ role: "user", content: text }] })
      .withResponse();
    return { status: response.status, id: response.headers.get("x-gateway-request-id") };
  } catch (error) {
    if (error instanceof APIError) return { status: error.status ?? 0, id: error.headers?.get("x-gateway-request-id") ?? null };
    throw error;
  }
}

async function admin(instance: Instance, method: string, route: string, body?: unknown) {
  const response = await fetch(`${instance.url}/admin/v1${route}`, {
    method,
    headers: { "x-gateway-api-key": keys.admin_key, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answer bodies field by field
  return { status: response.status, body: (await response.json()) as any };
}

/** Every log id in the store, through one instance's listing. */
async function loggedIds(instance: Instance): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await admin(instance, "GET", `/logs?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
    for (const entry of page.body.data as Array<{ id: string }>) ids.add(entry.id);
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  return ids;
}

beforeAll(async () => {
  [postgres, redis, upstream] = await Promise.all([startPostgres(), startRedis(), new FakeUpstream().start()]);
  storeUrl = await postgres.createDatabase();
  // The first start bootstraps the empty store; the others find it set up.
  const first = await serve();
  keys = JSON.parse(readFileSync(path.join(first.dir, "initial-keys.json"), "utf8"));
  await Promise.all([serve(), serve()]);
}, 120_000);

afterAll(async () => {
  for (const instance of instances) {
    if (instance.child.exitCode === null) instance.child.kill("SIGKILL");
    rmSync(instance.dir, { recursive: true, force: true });
  }
  await redis?.stop();
  await postgres?.stop();
  await upstream?.close();
});

describe("two gateways starting together on an empty Postgres store", () => {
  it("make one first organization, and only one of them prints first keys", async () => {
    const emptyStore = await postgres.createDatabase();
    const dirs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), "guardgate-fleet-first-")));
    const children: ChildProcess[] = [];
    try {
      const started = await Promise.all(
        dirs.map((dir) =>
          spawnServe(["--data-dir", dir, "--store", emptyStore], {
            env: { ...cleanEnv(), GUARDGATE_SECRET_KEY: secretKey },
            onSpawn: (child) => children.push(child),
          }),
        ),
      );
      expect(started.filter((instance) => instance.output().includes("first start")).length).toBe(1);
      const db = new pg.Client({ connectionString: emptyStore });
      await db.connect();
      try {
        expect((await db.query("SELECT id FROM organizations")).rows).toHaveLength(1);
        expect((await db.query("SELECT id FROM api_keys")).rows).toHaveLength(2);
      } finally {
        await db.end();
      }
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a fleet of three gateways over one Postgres and one Redis", () => {
  it("sees a guardrail saved through one instance on another within a second", async () => {
    const [a, , c] = instances as [Instance, Instance, Instance];
    const guardrail = (rule: string) => ({
      side: "input",
      async: false,
      deny: true,
      checks: [{ id: "default.regexMatch", parameters: { rule, not: true } }],
    });
    expect(
      (await admin(a, "POST", `/workspaces/${keys.workspace_id}/guardrails`, { id: "fleet-word", ...guardrail("never-said") }))
        .status,
    ).toBe(201);
    const config = { input_guardrails: ["fleet-word"] };
    // C resolves and caches the guardrail as it is now: the word passes.
    expect((await chat(c, "the word is pineapple", config)).status).toBe(200);
    expect((await admin(a, "PUT", `/workspaces/${keys.workspace_id}/guardrails/fleet-word`, guardrail("pineapple"))).status).toBe(
      200,
    );
    const changed = Date.now();
    await expect
      .poll(async () => (await chat(c, "the word is pineapple", config)).status, { interval: 50, timeout: 1000 })
      .toBe(446);
    expect(Date.now() - changed).toBeLessThan(1000);
  });

  it("shares the simple response cache: an answer cached through A is a hit on C", async () => {
    const [a, , c] = instances as [Instance, Instance, Instance];
    const created = await admin(a, "POST", "/integrations", {
      slug: "up",
      provider: "openai",
      base_url: upstream.baseUrl,
      credentials: { api_key: "sk-fleet-upstream-key" },
    });
    expect(created.status).toBe(201);
    expect((await admin(a, "PUT", `/integrations/${created.body.id}/workspaces/${keys.workspace_id}`, {})).status).toBe(200);
    const ask = (instance: Instance) =>
      client(instance, { cache: { mode: "simple" } })
        .chat.completions.create({ model: "@up/gpt-4o-mini", messages: [{ role: "user", content: "cache me" }] })
        .withResponse();
    // C learns of the new provider through the change notice.
    await expect.poll(async () => (await chat(c, "hello", undefined, "@up/gpt-4o-mini")).status).toBe(200);
    const before = upstream.requests.length;
    const first = await ask(a);
    const second = await ask(c);
    expect(second.data.choices[0]?.message.content).toBe(first.data.choices[0]?.message.content);
    expect(upstream.requests.length - before).toBe(1);
    const id = second.response.headers.get("x-gateway-request-id");
    await expect.poll(async () => (await admin(a, "GET", `/logs/${id}`)).body.cache_status).toBe("HIT");
  });

  it("holds a rate limit of N per minute across the three, and survives Redis restarting", async () => {
    const limit = 6;
    const [a, b, c] = instances as [Instance, Instance, Instance];
    expect(
      (await admin(a, "PATCH", `/workspaces/${keys.workspace_id}`, { rate_limit: { requests_per_minute: limit } })).status,
    ).toBe(200);
    // Every instance must have dropped its cached workspace before the count starts.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const statuses: number[] = [];
    for (let i = 0; i < limit * 2; i++) statuses.push((await chat(instances[i % 3]!, `request ${i}`)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(limit);

    // Redis goes away: limits fail open (the default), and nothing hangs.
    await redis.pause();
    const during = await Promise.all([chat(a, "while down"), chat(b, "while down"), chat(c, "while down")]);
    expect(during.map((r) => r.status)).toEqual([200, 200, 200]);
    // Back, empty (nothing was saved): the instances reconnect (every half second at most) and count again.
    await redis.start();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after: number[] = [];
    for (let i = 0; i < limit * 2; i++) after.push((await chat(instances[i % 3]!, `again ${i}`)).status);
    expect(after.filter((s) => s === 200)).toHaveLength(limit);
    // Lifted for the next test.
    expect(
      (await admin(a, "PATCH", `/workspaces/${keys.workspace_id}`, { rate_limit: { requests_per_minute: 1_000_000 } })).status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  });

  it("lists every request of all three in one log, and loses none an instance answered before SIGTERM", async () => {
    const [a, b, c] = instances as [Instance, Instance, Instance];
    const answered: string[] = [];
    const send = async (instance: Instance, text: string) => {
      const result = await chat(instance, text).catch(() => ({ status: 0, id: null }));
      if (result.status === 200 && result.id) answered.push(result.id);
    };
    for (let i = 0; i < 9; i++) await send([a, b, c][i % 3]!, `round ${i}`);
    // B is stopped while requests to it are in flight.
    const inFlight = Array.from({ length: 20 }, (_, i) => send(b, `in flight ${i}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    b.child.kill("SIGTERM");
    await Promise.all(inFlight);
    expect(await b.exited).toBe(0);
    expect(answered.length).toBeGreaterThan(9);
    const logged = await loggedIds(c);
    const missing = answered.filter((id) => !logged.has(id));
    expect(missing).toEqual([]);
  });
});
