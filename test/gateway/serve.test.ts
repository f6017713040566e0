/**
 * `guardgate serve` as a process: it prints its address, answers /health, and on SIGTERM lets an
 * in-flight request finish before it exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeUpstream } from "../support/fake-upstream.js";
import { START_LIMIT_MS } from "../support/serve-process.js";

const root = path.join(import.meta.dirname, "../..");
let upstream: FakeUpstream;
let configPath: string;
let scratch: string;

beforeAll(async () => {
  upstream = await new FakeUpstream().start();
  const dir = await mkdtemp(path.join(os.tmpdir(), "guardgate-serve-"));
  scratch = dir;
  configPath = path.join(dir, "gateway.yaml");
  await writeFile(
    configPath,
    [
      "api_keys:",
      "  - key: gk-serve-test-0123456789",
      "providers:",
      "  - slug: slow",
      "    provider: openai",
      `    base_url: ${upstream.baseUrl}`,
      "    api_key: sk-upstream",
      "",
    ].join("\n"),
  );
});

afterAll(async () => {
  await upstream.close();
  await rm(scratch, { recursive: true, force: true });
});

/** Starts the CLI and resolves with its base URL once it printed it. */
async function serve(args: string[]): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  // Each start gets a fresh data folder (the store), so runs never see each other's records.
  const dataDir = await mkdtemp(path.join(scratch, "data-"));
  const child = spawn(process.execPath, [path.join(root, "dist/cli/bin.js"), "serve", "--data-dir", dataDir, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d) => {
    output += String(d);
  });
  child.stderr?.on("data", (d) => {
    output += String(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed:\n${output}`)), START_LIMIT_MS);
    const check = () => {
      const match = /guardgate listening on (http:\/\/[^\s:]+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on("data", check);
    child.once("exit", () => reject(new Error(`exited early:\n${output}`)));
  });
  return { child, url, output: () => output };
}

describe("guardgate serve", () => {
  it("prints what it loaded, answers /health, and finishes in-flight requests on SIGTERM", async () => {
    const { child, url, output } = await serve(["--port", "0", "--config", configPath, "--log-level", "warn"]);
    // The store holds the first start's admin and API keys and mock provider, plus the file's.
    expect(output()).toMatch(/3 API keys, 2 providers, 0 guardrails, 0 configs, \d+ checks from \d+ plugin/);
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toEqual({ status: "ok" });

    upstream.enqueue({ kind: "answer", text: "late but whole", delayMs: 700 });
    const inFlight = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": "gk-serve-test-0123456789" },
      body: JSON.stringify({ model: "@slow/m", messages: [{ role: "user", content: "x" }] }),
    });
    while (upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    child.kill("SIGTERM");
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe(
      "late but whole",
    );
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(output()).toContain("SIGTERM: finishing in-flight requests");
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it("refuses a bad config file with its path, exit status 2", async () => {
    const bad = path.join(path.dirname(configPath), "bad.yaml");
    await writeFile(bad, "guardrails:\n  - id: g\n    checks:\n      - id: default.unknownCheck\n");
    const child = spawn(
      process.execPath,
      [path.join(root, "dist/cli/bin.js"), "serve", "--port", "0", "--config", bad, "--data-dir", path.join(scratch, "bad-data")],
      { cwd: root },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain("guardrails[0].checks[0]");
  });

  it("writes one access line per request at info, every one of them out before it exits", async () => {
    const { child, url, output } = await serve(["--port", "0", "--config", configPath]);
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": "gk-serve-test-0123456789" },
        body: JSON.stringify({ model: "@slow/m", messages: [{ role: "user", content: `n${i}` }] }),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    child.kill("SIGTERM");
    await once(child, "close");
    const lines = output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request completed"'))
      .map((line) => JSON.parse(line) as { req: { url: string }; res: { statusCode: number } });
    const inference = lines.filter((line) => line.req.url === "/v1/chat/completions");
    expect(inference).toHaveLength(20);
    expect(inference.every((line) => line.res.statusCode === 200)).toBe(true);
  });

  it("writes its start-up and stop lines as pino lines, naming the keys' file rather than the keys, when stdout is no terminal", async () => {
    const { child, output } = await serve(["--port", "0", "--log-level", "warn"]);
    child.kill("SIGTERM");
    // Stopped as soon as it said it listens, it still stops cleanly.
    const [code] = await once(child, "close");
    expect(code).toBe(0);
    // stdout and stderr together: every line is one JSON object, as a log collector reads them.
    const lines = output()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; keys_file?: string; url?: string });
    const first = lines.find((line) => line.msg.includes("first start: created organization"));
    expect(first).toMatchObject({ level: 30, keys_file: expect.stringMatching(/initial-keys\.json$/) });
    const keys = JSON.parse(await readFile(first?.keys_file ?? "", "utf8")) as { admin_key: string; api_key: string };
    // The keys are shown once to a person at a terminal; a log gets where they are.
    expect(output()).not.toContain(keys.admin_key);
    expect(output()).not.toContain(keys.api_key);
    expect(lines.find((line) => line.msg.includes("generated a secret key"))).toMatchObject({ level: 40 });
    expect(lines.find((line) => line.msg.startsWith("guardgate listening on"))).toMatchObject({
      level: 30,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(lines.map((line) => line.msg)).toContainEqual(expect.stringContaining("SIGTERM: finishing in-flight requests"));
  });
});
