/**
 * A gateway over a real store in a temporary data folder, for end-to-end tests of the management
 * plane: bootstrapped (one organization, one workspace with the mock provider, an admin key and an
 * API key), with the test plugins loaded and its log lines captured.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { type AppOptions, buildApp } from "../../server/app.js";
import type { GatewayFile } from "../../server/sources/config-file.js";
import type { Counters } from "../../server/limits/counters.js";
import type { InitialKeys } from "../../server/lifecycle/bootstrap.js";
import { type ManagedGateway, prepareManagedGateway, type SetupReport } from "../../server/lifecycle/start.js";
import { proPlugin } from "./management.js";
import testPlugin from "./test-plugin.js";

export interface ManagedTestGateway {
  app: FastifyInstance;
  dir: string;
  keys: InitialKeys;
  managed: ManagedGateway;
  report: SetupReport;
  /** Every log line the app wrote. */
  logLines: string[];
  /** Sends a request through `app.inject`. */
  call(
    method: string,
    url: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answer bodies field by field
  ): Promise<{ status: number; body: any; headers: Record<string, unknown>; text: string }>;
  close(): Promise<void>;
}

/** Starts a managed gateway in a fresh data folder. */
export async function startManaged(
  options: {
    file?: GatewayFile;
    counters?: Counters;
    dir?: string;
    app?: Pick<AppOptions, "executor" | "plugins">;
    redisUrl?: string;
    /** How long a request log may wait for companions before it is written, ms; 5 by default. */
    logFlushMs?: number;
  } = {},
): Promise<ManagedTestGateway> {
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), "guardgate-managed-"));
  const managed = await prepareManagedGateway({
    dataDir: dir,
    env: {},
    externalChangePollMs: 0,
    logWriter: { flushIntervalMs: options.logFlushMs ?? 5 },
    ...(options.file && { file: options.file }),
    ...(options.counters && { counters: options.counters }),
    ...(options.redisUrl && { redisUrl: options.redisUrl }),
  });
  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    ...managed.appOptions,
    plugins: [testPlugin, proPlugin],
    ...options.app,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    logger: { level: "info", stream },
  });
  let report: SetupReport;
  try {
    report = await managed.setup(app);
    await app.ready();
    // As `guardgate serve --wait-ready` does: /ready answers 200 only after it.
    await managed.warm(app);
  } catch (error) {
    await app.close();
    await managed.abandon();
    throw error;
  }
  const keys = report.initial?.keys ?? (JSON.parse(readFileSync(path.join(dir, "initial-keys.json"), "utf8")) as InitialKeys);
  return {
    app,
    dir,
    keys,
    managed,
    report,
    logLines,
    async call(method, url, o = {}) {
      const response = await app.inject({
        method: method as "GET",
        url,
        headers: { ...(o.key !== undefined && { "x-gateway-api-key": o.key }), ...o.headers },
        ...(o.body !== undefined && { payload: o.body as object }),
      });
      let body: unknown;
      try {
        body = response.body ? JSON.parse(response.body) : undefined;
      } catch {
        body = undefined;
      }
      return { status: response.statusCode, body, headers: response.headers, text: response.body };
    },
    async close() {
      await app.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A chat request body through a provider slug. */
export function chat(model: string, content = "Hello there", extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, messages: [{ role: "user", content }], ...extra };
}
