/**
 * docker-compose's balancer (`deploy/nginx.conf`) in front of three real gateways whose provider is
 * down: the gateways' own 503s reach the client once each, the provider is called once per request
 * (no retry through another gateway), and no healthy gateway is taken out of the pool. Runs the
 * real nginx when it is installed; the config's retry rule is read in any case.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../server/lifecycle/serve.js";
import { FakeUpstream } from "./support/fake-upstream.js";
import { freePort } from "./support/free-port.js";

const root = path.join(import.meta.dirname, "..");
const NGINX = "/usr/sbin/nginx";
const KEY = "gk-balancer-test-0123456789";

describe("deploy/nginx.conf", () => {
  it("passes only connection errors and timeouts to the next gateway, never a gateway's own 5xx answer", async () => {
    const conf = await readFile(path.join(root, "deploy/nginx.conf"), "utf8");
    const rules = [...conf.matchAll(/^\s*proxy_next_upstream\s+([^;]+);/gm)].map((m) => m[1]!.split(/\s+/));
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) expect(rule.filter((word) => /^http_/.test(word) || word === "non_idempotent")).toEqual([]);
  });
});

describe.skipIf(!existsSync(NGINX))("nginx in front of three gateways, one of them answering 503 for its provider", () => {
  // The first gateway's provider is down, the others' is up: a gateway answering 503 for its
  // provider must stay in the pool, and its requests must not be sent to another gateway.
  let down: FakeUpstream;
  let up: FakeUpstream;
  let scratch: string;
  let nginx: ChildProcess | undefined;
  let balancer: string;
  const gateways: RunningServer[] = [];
  const served = [0, 0, 0];

  beforeAll(async () => {
    down = await new FakeUpstream().start();
    up = await new FakeUpstream().start();
    scratch = await mkdtemp(path.join(os.tmpdir(), "guardgate-nginx-"));
    for (const index of [0, 1, 2]) {
      const configPath = path.join(scratch, `gateway${index + 1}.yaml`);
      await writeFile(
        configPath,
        [
          "api_keys:",
          `  - key: ${KEY}`,
          "providers:",
          "  - slug: flaky",
          "    provider: openai",
          `    base_url: ${(index === 0 ? down : up).baseUrl}`,
          "    api_key: sk-upstream",
          "",
        ].join("\n"),
      );
      gateways.push(
        await startServer({
          port: 0,
          host: "127.0.0.1",
          configPath,
          logLevel: "error",
          app: { executor: "inline" },
          setup: async (app) => {
            app.addHook("onRequest", async () => {
              served[index]!++;
            });
          },
        }),
      );
    }
    // The compose file's config with only the addresses changed.
    const port = await freePort();
    let conf = await readFile(path.join(root, "deploy/nginx.conf"), "utf8");
    for (const [index, gateway] of gateways.entries()) conf = conf.replace(`gateway${index + 1}:8787`, new URL(gateway.url).host);
    conf = conf.replace(/listen 8080;/, `listen 127.0.0.1:${port};`).replace("http {", "http {\n  access_log off;");
    await writeFile(path.join(scratch, "nginx.conf"), conf);
    nginx = spawn(
      NGINX,
      [
        "-p",
        scratch,
        "-c",
        path.join(scratch, "nginx.conf"),
        "-g",
        `daemon off; pid ${scratch}/nginx.pid; error_log ${scratch}/error.log;`,
      ],
      { stdio: "ignore" },
    );
    balancer = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const up = await fetch(`${balancer}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 100 || nginx.exitCode !== null)
        throw new Error(`nginx did not start: ${await readFile(`${scratch}/error.log`, "utf8")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    served.fill(0);
  });

  afterAll(async () => {
    nginx?.kill("SIGTERM");
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await down?.close();
    await up?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const ask = () =>
    fetch(`${balancer}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": KEY },
      body: JSON.stringify({ model: "@flaky/m", messages: [{ role: "user", content: "hello" }] }),
    });

  it("keeps a gateway that answers 503 in the pool and never passes its request to another", async () => {
    for (let i = 0; i < 20; i++) down.enqueue({ kind: "json", status: 503, body: { error: { message: "overloaded" } } });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await ask()).status);
    // Round robin: every third request went to the first gateway and came back as its 503.
    expect(served).toEqual([4, 4, 4]);
    expect(statuses.filter((status) => status === 503)).toHaveLength(4);
    expect(statuses.filter((status) => status === 200)).toHaveLength(8);
    // One provider call per request that gateway answered: none was passed on and called again.
    expect(down.requests).toHaveLength(4);
    expect(up.requests).toHaveLength(8);
  });
});
