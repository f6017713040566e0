/**
 * Probes do not flood the process log: a `/ready` asked while the gateway warms up is one line
 * without a stack trace, and the access lines of `/health`, `/ready` and `/metrics` are at debug
 * level (shown with `--log-level debug`), while other requests stay at info.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../server/app.js";
import { prepareManagedGateway } from "../../server/lifecycle/start.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

interface Line {
  level: number;
  msg: string;
  req?: { url: string };
  err?: { stack?: string };
}

/** A managed gateway set up but not warmed up (as `serve` is in its first seconds), logging at `level`. */
async function unwarmed(level: string): Promise<{ app: FastifyInstance; lines: () => Line[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-probe-logs-"));
  const managed = await prepareManagedGateway({ dataDir: dir, env: {}, externalChangePollMs: 0 });
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      raw.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const app = await buildApp({ ...managed.appOptions, logger: { level, stream } });
  await managed.setup(app);
  await app.ready();
  cleanups.push(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { app, lines: () => raw.map((line) => JSON.parse(line) as Line) };
}

describe("probe lines in the process log", () => {
  it("a /ready during the warm-up is one line, no warning and no stack trace", async () => {
    const { app, lines } = await unwarmed("info");
    for (let i = 0; i < 3; i++) {
      const answer = await app.inject({ method: "GET", url: "/ready" });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ checks: { warm_up: "unavailable" } });
    }
    const logged = lines();
    expect(logged.filter((line) => line.level >= 40)).toEqual([]);
    expect(logged.filter((line) => line.err !== undefined)).toEqual([]);
    const notReady = logged.filter((line) => line.msg.startsWith("not ready"));
    expect(notReady).toHaveLength(3);
    expect(notReady[0]!.msg).toBe("not ready: warm_up (the worker pool is starting and the models are loading)");
    // At info, the probes' own access lines are not there.
    expect(logged.filter((line) => line.msg === "request completed")).toEqual([]);
  });

  it("access lines of /health, /ready and /metrics are debug; other requests' are info", async () => {
    const { app, lines } = await unwarmed("debug");
    await app.inject({ method: "GET", url: "/health" });
    await app.inject({ method: "GET", url: "/ready?verbose=1" });
    await app.inject({ method: "GET", url: "/metrics" });
    await app.inject({ method: "GET", url: "/admin/v1/workspaces" });
    const access = lines().filter((line) => line.msg === "request completed");
    expect(access.map((line) => [line.req?.url, line.level])).toEqual([
      ["/health", 20],
      ["/ready?verbose=1", 20],
      ["/metrics", 20],
      ["/admin/v1/workspaces", 30],
    ]);
  });
});
