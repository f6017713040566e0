/**
 * The servers of the gateway benchmark, one per child process so the load generator, the
 * upstream and the server under test do not share an event loop: the fake upstream, the floor (a
 * minimal fastify + undici passthrough proxy with no features), guardgate as `guardgate serve`
 * runs it (the store, its SQLite request log and request gate, info-level logging, the serve
 * command's executor), and the bare app (`buildApp`: in-memory sources and request log, inline
 * executor, warn-level logging), and one instance of a fleet over Postgres and Redis; for the
 * streaming rows, an upstream that streams a long answer at a steady token rate; for the MCP
 * rows, an MCP server (mcp-bench.ts). Each sends `{port}` to its parent once it listens.
 */
import { once } from "node:events";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Fastify from "fastify";
import { Pool } from "undici";
import { buildApp } from "../server/app.js";
import type { GatewayFile } from "../server/sources/config-file.js";
import { startManagedServer } from "../server/lifecycle/start.js";
import { FakeUpstream } from "../test/support/fake-upstream.js";
import { benchMcpServers, startBenchMcpServer } from "./mcp-bench.js";
import { installProbe, type PhaseCounts } from "./process-probe.js";
import { sampleText } from "./sample-text.js";
import { STANDARD_PACK } from "./standard-pack.js";
import { stageMicros } from "./stage-profile.js";

/** The benchmark's API key. */
export const BENCH_KEY = "gk-bench-0123456789abcdef";

export { STANDARD_PACK } from "./standard-pack.js";

/** Tokens of the streamed answer, and how the stream upstream paces them. */
export const STREAM_TOKENS = 2000;
const TOKENS_PER_TICK = 4;
const TICK_MS = 2;

/** The stream modes and windows the streaming rows measure, each a saved config with the pack's output guardrail. */
export const STREAM_CONFIGS: Record<string, Record<string, unknown>> = Object.fromEntries(
  [
    ["after", undefined],
    ["window", undefined],
    ["buffer", undefined],
    ["window", 50],
    ["window", 100],
    ["window", 400],
    ["window", 800],
  ].map(([mode, window]) => [
    `stream-${mode}${window ? `-${window}` : ""}`,
    {
      provider: "@upstream",
      stream_mode: mode,
      ...(window && { stream_window: window }),
      output_guardrails: STANDARD_PACK.output_guardrails,
    },
  ]),
);

/** Characters of the long streamed answer, asked for with `max_tokens: LONG_STREAM_CHARS`. */
export const LONG_STREAM_CHARS = 200_000;

/**
 * The long stream's output guardrail: the pack's checks with limits the answer stays within, so
 * it passes in both modes: a pattern each window is checked for, and two counts of the whole answer.
 */
const LONG_STREAM_GUARDRAIL = {
  id: "output-long",
  wordCount: { maxWords: 100_000 },
  characterCount: { maxCharacters: 1_000_000 },
  secrets: { id: "default.regexMatch", rule: "(?i)(api[_-]?key|password)\\s*[:=]", not: true },
};

/** The long stream's configs: window mode (the default window) against buffer mode. */
export const LONG_STREAM_CONFIGS: Record<string, Record<string, unknown>> = Object.fromEntries(
  (["window", "buffer"] as const).map((mode) => [
    `long-${mode}`,
    { provider: "@upstream", stream_mode: mode, output_guardrails: [LONG_STREAM_GUARDRAIL] },
  ]),
);

/**
 * An OpenAI-style upstream whose streamed chat answer is STREAM_TOKENS words, TOKENS_PER_TICK
 * of them every TICK_MS (about 2,000 tokens a second, faster than a model, so a run stays short);
 * asked for `max_tokens: LONG_STREAM_CHARS`, that many characters of words as fast as the socket
 * takes them (the long stream's CPU is what its rows measure).
 */
async function streamUpstream(): Promise<number> {
  const words = sampleText(STREAM_TOKENS * 8)
    .split(/(?<= )/)
    .slice(0, STREAM_TOKENS);
  const longWords = sampleText(LONG_STREAM_CHARS).split(/(?<= )/);
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant", content: "" }, null));
      const asked = (JSON.parse(Buffer.concat(parts).toString("utf8")) as { max_tokens?: number }).max_tokens;
      if (asked === LONG_STREAM_CHARS) {
        let at = 0;
        const burst = () => {
          if (res.destroyed) return;
          let out = "";
          for (let i = 0; i < 64 && at < longWords.length; i++) out += chunk({ content: longWords[at++] }, null);
          if (at < longWords.length) {
            if (res.write(out)) setImmediate(burst);
            else res.once("drain", burst);
            return;
          }
          res.end(`${out}${chunk({}, "stop")}data: [DONE]\n\n`);
        };
        burst();
        return;
      }
      let next = 0;
      const tick = () => {
        if (res.destroyed) return;
        let out = "";
        for (let i = 0; i < TOKENS_PER_TICK && next < words.length; i++) out += chunk({ content: words[next++] }, null);
        if (next < words.length) {
          res.write(out);
          setTimeout(tick, TICK_MS);
          return;
        }
        res.end(`${out}${chunk({}, "stop")}data: [DONE]\n\n`);
      };
      tick();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

async function upstream(): Promise<number> {
  const fake = await new FakeUpstream({ record: false }).start();
  return Number(new URL(fake.origin).port);
}

async function floor(upstreamPort: number): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${upstreamPort}`, { connections: 256, keepAliveTimeout: 30_000 });
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  app.post("/v1/chat/completions", async (request, reply) => {
    const response = await pool.request({
      path: "/v1/chat/completions",
      method: "POST",
      headers: { "content-type": "application/json", authorization: String(request.headers.authorization ?? "") },
      body: JSON.stringify(request.body),
    });
    reply.code(response.statusCode).type(String(response.headers["content-type"] ?? "application/json"));
    // A stream passes through as it arrives.
    if ((request.body as { stream?: unknown }).stream === true) return reply.send(response.body);
    return response.body.text();
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return (app.server.address() as AddressInfo).port;
}

function benchFile(upstreamPort: number, mcpPort?: number): GatewayFile {
  return {
    api_keys: [{ key: BENCH_KEY }],
    ...(mcpPort && { mcp_servers: benchMcpServers(`http://127.0.0.1:${mcpPort}/mcp`) }),
    providers: [
      { slug: "upstream", provider: "openai", base_url: `http://127.0.0.1:${upstreamPort}/v1`, api_key: "sk-bench" },
      // The same fake upstream reached as an Anthropic provider: OpenAI chat requests translated to Messages and back.
      { slug: "anthropic-upstream", provider: "anthropic", base_url: `http://127.0.0.1:${upstreamPort}/v1`, api_key: "sk-bench" },
    ],
    configs: [
      { id: "none", config: { provider: "@upstream" } },
      { id: "pack", config: { provider: "@upstream", ...STANDARD_PACK } },
      { id: "translated", config: { provider: "@anthropic-upstream" } },
      { id: "translated-pack", config: { provider: "@anthropic-upstream", ...STANDARD_PACK } },
      ...Object.entries(STREAM_CONFIGS).map(([id, config]) => ({ id, config })),
      ...Object.entries(LONG_STREAM_CONFIGS).map(([id, config]) => ({ id, config })),
    ],
  };
}

/**
 * `guardgate serve --config FILE --data-dir DIR` with the command's defaults (log level info,
 * executor auto); with `shared`, one instance of a fleet over that Postgres and Redis; with
 * `mcpPort`, serving that MCP server.
 */
async function serve(
  upstreamPort: number,
  executor: "auto" | "inline" | "pool",
  shared?: { storeUrl: string; redisUrl: string },
  mcpPort?: number,
): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "guardgate-bench-"));
  process.once("SIGTERM", () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  const configPath = path.join(dir, "gateway.json");
  writeFileSync(configPath, JSON.stringify(benchFile(upstreamPort, mcpPort)));
  const server = await startManagedServer({
    port: 0,
    host: "127.0.0.1",
    configPath,
    dataDir: path.join(dir, "data"),
    ...shared,
    logLevel: "info",
    app: { executor },
  });
  phaseCounts = () => executorCounts(server.app.guardgate.engine.executor);
  return Number(new URL(server.url).port);
}

/** Phases each way so far, where the executor counts them (the "auto" one); read over IPC around the paced runs. */
let phaseCounts: () => PhaseCounts | undefined = () => undefined;

/** Phases an executor ran inline and in the pool; undefined for one that does not count them. */
function executorCounts(executor: unknown): PhaseCounts | undefined {
  const counts = (executor as { counts?: () => PhaseCounts }).counts;
  return typeof counts === "function" ? counts.call(executor) : undefined;
}

/** The bare app: in-memory sources and request log, inline executor. */
async function app(upstreamPort: number): Promise<number> {
  const built = await buildApp({ logger: { level: "warn" }, file: benchFile(upstreamPort) });
  await built.listen({ port: 0, host: "127.0.0.1" });
  return (built.server.address() as AddressInfo).port;
}

/** Where this process's compiled code lives: dist/, one folder above dist/bench, as V8 names its modules (real path). */
const distUrl = `${pathToFileURL(realpathSync(path.dirname(import.meta.dirname))).href}/`;

/**
 * The V8 sampling interval while profiling, in µs: finer than the default 1 ms so a few seconds
 * at the paced rate give tens of thousands of samples.
 */
const SAMPLING_MICROS = 250;

let profiler: Session | undefined;

/** Starts the CPU profiler in this process, through the inspector, without restarting it. */
async function startProfile(): Promise<void> {
  profiler = new Session();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: SAMPLING_MICROS });
  await profiler.post("Profiler.start");
  // Where the garbage comes from, beside where the time goes, when asked for: every allocation
  // sampled, the ones collected since included.
  if (process.env.BENCH_HEAP_DIR) {
    await profiler.post("HeapProfiler.enable");
    await profiler.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
}

/** Stops the profiler and reduces the profile to time per stage, so only a few numbers cross the IPC channel. */
async function stopProfile() {
  if (!profiler) throw new Error("profile-stop without profile-start");
  const { profile } = await profiler.post("Profiler.stop");
  const heapDir = process.env.BENCH_HEAP_DIR;
  if (heapDir) {
    const { profile: heap } = await profiler.post("HeapProfiler.stopSampling");
    await profiler.post("HeapProfiler.disable");
    writeFileSync(path.join(heapDir, `${role}-${process.pid}-${Date.now()}.heapprofile`), JSON.stringify(heap));
  }
  await profiler.post("Profiler.disable");
  profiler.disconnect();
  profiler = undefined;
  // The whole profile too, for a closer look in DevTools, when asked for.
  const keep = process.env.BENCH_PROFILE_DIR;
  if (keep) writeFileSync(path.join(keep, `${role}-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
  return stageMicros(profile, distUrl);
}

// The parent asks for this process's CPU time and garbage around each measurement, and for a profile by stage.
installProbe();
process.on("message", (message) => {
  if (message === "profile-start") {
    startProfile().then(
      () => process.send?.({ profiling: true }),
      (error: unknown) => process.send?.({ profileError: String(error) }),
    );
  } else if (message === "phase-counts") {
    process.send?.({ phaseCounts: phaseCounts() ?? null });
  } else if (message === "profile-stop") {
    stopProfile().then(
      (stages) => process.send?.({ stages }),
      (error: unknown) => process.send?.({ profileError: String(error) }),
    );
  }
});

// The fourth argument: the MCP server's port for `serve`, the Redis URL for `fleet-serve`.
const [role, arg, executor, fourth] = process.argv.slice(2);
const start =
  role === "upstream"
    ? upstream()
    : role === "mcp-upstream"
      ? startBenchMcpServer().then(({ port }) => port)
      : role === "stream-upstream"
        ? streamUpstream()
        : role === "floor"
          ? floor(Number(arg))
          : role === "serve"
            ? serve(Number(arg), (executor ?? "auto") as "auto" | "inline" | "pool", undefined, Number(fourth ?? 0) || undefined)
            : role === "fleet-serve"
              ? serve(Number(arg), "auto", { storeUrl: executor!, redisUrl: fourth! })
              : app(Number(arg));
start.then(
  (port) => process.send?.({ port }),
  (error: unknown) => {
    process.stderr.write(`${role}: ${(error as Error).stack}\n`);
    process.exit(1);
  },
);
