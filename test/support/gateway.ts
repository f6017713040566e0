/**
 * Starts a gateway for end-to-end tests on 127.0.0.1, with the test plugin loaded, fast retries,
 * no log output and an in-memory request log the test can read.
 */
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { type AppOptions, buildApp } from "../../server/app.js";
import { InMemoryRequestLogSink } from "../../server/logs/sink.js";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { FakeUpstream } from "./fake-upstream.js";
import testPlugin from "./redact-plugin.js";

/** The gateway key every test gateway accepts. */
export const API_KEY = "gk-test-0123456789abcdef";

/** A running test gateway. */
export interface TestGateway {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  url: string;
  logs: InMemoryRequestLogSink;
  close(): Promise<void>;
}

/** Starts a gateway; `file` is merged over a file holding API_KEY. */
export async function startGateway(options: AppOptions = {}): Promise<TestGateway> {
  const logs = new InMemoryRequestLogSink();
  const app = await buildApp({
    logger: false,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    logSink: logs,
    plugins: [testPlugin],
    ...options,
    file: { ...options.file, api_keys: [{ key: API_KEY }, ...(options.file?.api_keys ?? [])] },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, url, logs, close: () => app.close() };
}

/** JSON for a header: HTTP header values are Latin-1, so other characters travel as \u escapes. */
export function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Headers of a gateway call: the key, and the config given as an object or an id. */
export function gatewayHeaders(config?: unknown, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { "x-gateway-api-key": API_KEY, ...extra };
  if (config !== undefined) headers["x-gateway-config"] = typeof config === "string" ? config : headerJson(config);
  return headers;
}

/** A test file's gateway and fake upstream, set in its `beforeAll`. */
export interface GatewayWithUpstream {
  upstream: FakeUpstream;
  gateway: TestGateway;
}

/**
 * Registers the hooks of a test file that talks to one gateway and one fake upstream: both started
 * before the tests and closed after them, the upstream reset before each test.
 */
export function useGatewayWithUpstream(options: AppOptions = {}): GatewayWithUpstream {
  const fixture = {} as GatewayWithUpstream;
  beforeAll(async () => {
    fixture.upstream = await new FakeUpstream().start();
    fixture.gateway = await startGateway(options);
  });
  afterAll(async () => {
    await fixture.gateway.close();
    await fixture.upstream.close();
  });
  beforeEach(() => fixture.upstream.reset());
  return fixture;
}
