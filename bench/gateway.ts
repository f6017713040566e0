/**
 * `npm run bench:gateway`: what guardgate adds to a request, against a floor measured in the same
 * run. A fake upstream, the floor (fastify + undici passthrough, no features), guardgate as
 * `guardgate serve` runs it and the bare app run in their own processes; autocannon drives each at
 * a fixed concurrency (maximum throughput), and a paced client sends a fixed request rate and times
 * every request in microseconds (latency without queueing). Latency is measured first, in rounds
 * that take every target in turn, so that whatever the machine does meanwhile falls on all of them
 * alike and no target is timed right after its own saturation run. Added latency is a target's
 * latency minus the direct upstream call's; each server's CPU time per request is read from the
 * process itself. Writes bench/results/gateway.json and .md.
 *
 * The streaming rows (streams.ts) follow: time to first token and total time of a 2,000-token
 * stream per stream mode. With `--streams`, only those are measured (bench/results/gateway-streams.*).
 * With `--fleet`, measures 1, 2 and 3 instances over Postgres and Redis instead (fleet.ts).
 *
 * The translated rows send the same OpenAI chat request to the same fake upstream reached as an
 * Anthropic provider: the request goes out as a Messages request and the answer comes back as a
 * chat completion. With `--translation`, only guardgate's passthrough and translated rows are
 * measured (bench/results/gateway-translation.*). Target: translation adds at most 15% CPU per
 * request over passthrough.
 *
 * The peer gateway (`@portkey-ai/gateway`, a pinned dev dependency) runs beside them as its package
 * documents its Node server, with the same pack in its own config form (peer-config.ts), in the
 * same rounds. Throughput is taken at 1 and 32 connections (`BENCH_CONNECTIONS`), also in rounds;
 * each server reports its garbage collection time and the bytes its heap allocated over the paced
 * runs (process-probe.ts). guardgate's rows carry their ratio to the peer's.
 *
 * Targets: with the standard pack on, added p50 ≤ 1.5× the floor's added p50, and throughput ≥
 * 60% of the floor's, for guardgate as `guardgate serve` runs it.
 *
 * guardgate's rows with and without the pack are also profiled (stage-profile.ts): one more paced
 * run each under the V8 CPU profiler divides their CPU per request between the stages of the
 * request path (intake, routing, enforce, call, relay, record). With `--stages`, only the floor and
 * those two rows and the peer's are measured, with the path targets: no guardrails ≥ 0.6 and the
 * pack ≥ 0.4 of the floor's throughput and ≥ 3× the peer's, the pack's CPU per request ≤ 1.6× the
 * floor's at the paced rate, its p99 at 32 connections ≤ 2.5× the floor's
 * (bench/results/gateway-stages.*). `BENCH_BEFORE=/path/to/another/built/checkout` adds that
 * build's `guardgate serve` rows to the same rounds, for a before/after on a busy machine.
 *
 * With `--responses`, guardgate's `/v1/responses` rows beside its chat rows: the same 1 KB turn as a
 * Responses request, passed through to the fake upstream as an OpenAI provider and translated to
 * it as an Anthropic one, with and without the pack (bench/results/gateway-responses.*). With
 * `--mcp`, `tools/call` through guardgate's MCP gateway against the same calls sent to the MCP
 * server directly, with and without the standard tool pack (mcp-bench.ts;
 * bench/results/gateway-mcp.*). Neither is in the default run, which they would make most of twice as long.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { Pool } from "undici";
import type { Json, ProviderCall } from "../server/providers/kind.js";
import { keptParameters } from "../server/providers/translate.js";
import { openAiCodec } from "../server/providers/codecs/openai.js";
import { ANTHROPIC_CHAT } from "../server/providers/kinds/anthropic/index.js";
import { type Endpoint, ENDPOINTS } from "../server/formats/endpoints.js";
import { answerBody } from "../test/support/fake-upstream.js";
import { runFleetBenchmark } from "./fleet.js";
import { BENCH_KEY } from "./gateway-servers.js";
import { openMcpSession, toolsCallBodies } from "./mcp-bench.js";
import { chatBody, prompt, responsesBody } from "./requests.js";
import { peerConfigHeader, peerServerPath, peerVersion } from "./peer-config.js";
import type { GcWindow, PhaseCounts } from "./process-probe.js";
import { STAGES, type StageMicros, stageCpuPerRequest } from "./stage-profile.js";
import { measureStreams, type StreamBenchDeps, streamTable } from "./streams.js";

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
/** Connection counts of the throughput runs (comma-separated); the last is the one ratios are taken at. */
const connectionCounts = (process.env.BENCH_CONNECTIONS ?? "1,32").split(",").map(Number);
const connections = connectionCounts.at(-1) as number;
const rate = Number(process.env.BENCH_RATE ?? 200);
/** Latency rounds; each times every target for `seconds / rounds`. */
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
/**
 * Seconds of each profiled run (`--stages`); default one latency round's. Longer runs take more
 * samples, for stage differences of a few tens of µs between two builds.
 */
const profileSeconds = Number(process.env.BENCH_PROFILE_SECONDS ?? seconds / rounds);
/** The serve command's `--executor`; its default unless set. */
const executor = process.env.BENCH_EXECUTOR ?? "auto";

const children: ChildProcess[] = [];

/**
 * Sends a server process a request and resolves with the field `key` of its answer
 * (gateway-servers.ts). With `waitMs`, resolves with undefined when no answer came by then (a build
 * that does not know the request), and stops listening either way.
 */
function ask<T>(child: ChildProcess, request: string, key: string): Promise<T>;
function ask<T>(child: ChildProcess, request: string, key: string, waitMs: number): Promise<T | undefined>;
function ask<T>(child: ChildProcess, request: string, key: string, waitMs?: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer =
      waitMs === undefined
        ? undefined
        : setTimeout(() => {
            child.off("message", onMessage);
            resolve(undefined);
          }, waitMs).unref();
    const onMessage = (message: unknown) => {
      if (typeof message !== "object" || message === null) return;
      const m = message as Record<string, unknown>;
      if (typeof m.profileError === "string") {
        child.off("message", onMessage);
        clearTimeout(timer);
        reject(new Error(`${request}: ${m.profileError}`));
      }
      if (!(key in m)) return;
      child.off("message", onMessage);
      clearTimeout(timer);
      resolve(m[key] as T);
    };
    child.on("message", onMessage);
    child.send(request);
  });
}

/** CPU time a server process has used so far, in microseconds. */
function cpuOf(child: ChildProcess): Promise<number> {
  return ask<number>(child, "cpu", "cpuMicros");
}

/** A port nothing listens on now, for a server that must be told its port (the peer). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * The peer gateway as its package documents its Node server (`node build/start-server.js
 * --port=N`, `--headless` for no browser UI), with peer-probe.ts preloaded to answer the same
 * questions as the benchmark's own servers. Its stdout (a start-up spinner and banner) is dropped.
 */
async function spawnPeer(port: number): Promise<number> {
  const probe = pathToFileURL(path.join(here, "peer-probe.js")).href;
  const child = fork(peerServerPath(), [`--port=${port}`, "--headless"], {
    execArgv: ["--import", probe],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve((message as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`the peer gateway exited with ${code}`)));
  });
}

/** The peer's rows: without guardrails and with the standard pack, its config sent as a header. */
function peerTargets(port: number, upstreamPort: number, peer: ChildProcess): Target[] {
  return (["none", "pack"] as const).map((config) => ({
    name: `peer gateway, ${CONFIG_NAMES[config]}`,
    url: chat(port),
    headers: { "x-portkey-config": peerConfigHeader(upstreamPort, config === "pack") },
    process: peer,
  }));
}

/**
 * Another build of this repository (its root, built) whose `guardgate serve` runs beside this
 * one's in `--stages`, in the same rounds: a before/after on a machine whose load moves between
 * runs (`BENCH_BEFORE=/path/to/checkout`).
 */
const before = process.env.BENCH_BEFORE;

function spawnServer(role: string, args: string[] = [], root = path.join(here, "..", "..")): Promise<number> {
  const child = fork(path.join(root, "dist", "bench", "gateway-servers.js"), [role, ...args], {
    // guardgate serve logs every request at info level: to /dev/null, as the process's own work.
    stdio: ["ignore", role === "serve" ? "ignore" : "inherit", "inherit", "ipc"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve((message as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

/** What the streaming rows use of this benchmark's process handling. */
const streamDeps: StreamBenchDeps = {
  spawnServer: async (role, args) => {
    const port = spawnServer(role, args);
    const process = children.at(-1) as ChildProcess;
    return { port: await port, process };
  },
  cpuOf,
};

function machine() {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model ?? "",
    node: process.version,
    loadavg_1m: round(os.loadavg()[0] ?? 0),
  };
}

/** `--streams`: the streaming rows alone. */
async function streamsOnly(): Promise<void> {
  const rows = await measureStreams(streamDeps);
  const report = { date: new Date().toISOString(), machine: machine(), streams: rows };
  const markdown = [
    "# Gateway benchmark: streams",
    "",
    `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}, load average ${report.machine.loadavg_1m} at the end.`,
    "",
    streamTable(rows),
    "",
  ].join("\n");
  await writeResults("gateway-streams", report, markdown);
}

/** Writes a report as `bench/results/<name>.json` and `.md`, and prints the markdown. */
async function writeResults(name: string, report: unknown, markdown: string): Promise<void> {
  // Compiled to dist/bench: the results belong beside the sources, in bench/results.
  const out = path.join(here, "../../bench/results");
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(out, `${name}.md`), markdown);
  process.stdout.write(`\n${markdown}`);
}

// A support-chat turn of about 1 KB; the upstream echoes it, so the answer is about as long.
const body = chatBody;

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The process serving the target, whose CPU time per request is measured. */
  process: ChildProcess;
  /** The request's body, or each request's own; the chat request when absent. */
  body?: string | (() => string);
}

/** The body of a target's next request. */
function bodyOf(target: Target): string {
  return typeof target.body === "function" ? target.body() : (target.body ?? body);
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

/** Maximum throughput: autocannon at `count` connections for `duration` seconds. */
function saturate(target: Target, count: number, duration: number): Promise<Measure> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers },
        body: bodyOf(target),
        duration,
        connections: count,
        // A body of its own per request (MCP ids), made as each request is sent.
        ...(typeof target.body === "function" && {
          requests: [{ setupRequest: (request) => ({ ...request, body: bodyOf(target) }) }],
        }),
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
          requests: result.requests.total,
        });
      },
    );
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The requests of paced runs: each one's latency in ms, and what failed. */
interface Samples {
  latencies: number[];
  errors: number;
  non2xx: number;
}

/** Latency at a fixed rate: requests start on schedule whatever the earlier ones do; each is timed into `into`. */
async function paced(target: Target, requestsPerSecond: number, durationSeconds: number, into: Samples): Promise<void> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 64 });
  const { latencies } = into;
  const total = Math.round(requestsPerSecond * durationSeconds);
  const start = performance.now();
  const inFlight: Array<Promise<void>> = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / requestsPerSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    inFlight.push(
      pool
        .request({
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "application/json", ...target.headers },
          body: bodyOf(target),
        })
        .then(async (response) => {
          await response.body.dump();
          latencies.push(performance.now() - sent);
          if (response.statusCode < 200 || response.statusCode >= 300) into.non2xx++;
        })
        .catch(() => {
          into.errors++;
        }),
    );
  }
  await Promise.all(inFlight);
  await pool.close();
}

function summary(samples: Samples, durationSeconds: number): Measure {
  const sorted = [...samples.latencies].sort((a, b) => a - b);
  return {
    rps: sorted.length / durationSeconds,
    p50: round(percentile(sorted, 50), 3),
    p99: round(percentile(sorted, 99), 3),
    errors: samples.errors,
    non2xx: samples.non2xx,
    requests: sorted.length,
  };
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

const chat = (port: number) => `http://127.0.0.1:${port}/v1/chat/completions`;

/** The saved configs of the benchmark's file (gateway-servers.ts), by how their rows are named. */
const CONFIG_NAMES = {
  none: "no guardrails",
  pack: "standard pack",
  translated: "translated to Anthropic, no guardrails",
  "translated-pack": "translated to Anthropic, standard pack",
} as const;

/** One server's targets, one per saved config. */
function gatewayTargets(name: string, port: number, server: ChildProcess, configs: Array<keyof typeof CONFIG_NAMES>): Target[] {
  return configs.map((config) => ({
    name: `${name}, ${CONFIG_NAMES[config]}`,
    url: chat(port),
    headers: { "x-gateway-api-key": BENCH_KEY, "x-gateway-config": config },
    process: server,
  }));
}

type Result = Target & {
  /** At the last (largest) connection count. */
  throughput: Measure;
  /** At each connection count. */
  throughputAt: Record<number, Measure>;
  paced: Measure;
  cpuMicrosPerRequest: number;
  /** Garbage collection over the paced runs, per request: time (µs), collections, and bytes the heap allocated. */
  gc: { micros: number; collections: number; allocatedBytes: number };
  /** Profiled time per stage, for the targets asked to be profiled. */
  stages?: StageMicros;
  /**
   * Phases the server's executor ran inline and in the worker pool, per request, over the paced
   * runs and over the profiled one; absent when the server does not count them.
   */
  phases?: { paced?: PhaseCounts; profiled?: PhaseCounts };
};

/**
 * The executor's phase counts in a server process; undefined when it does not count them (a
 * build from before the probe answered, or an executor other than "auto").
 */
async function phaseCountsOf(child: ChildProcess): Promise<PhaseCounts | undefined> {
  return (await ask<PhaseCounts | null>(child, "phase-counts", "phaseCounts", 1000)) ?? undefined;
}

/** Phases each way between two readings, per request. */
function phasesPerRequest(from: PhaseCounts | undefined, to: PhaseCounts | undefined, requests: number): PhaseCounts | undefined {
  if (!from || !to) return undefined;
  return { inline: round((to.inline - from.inline) / requests, 3), pool: round((to.pool - from.pool) / requests, 3) };
}

/**
 * One more paced run of a target under the V8 CPU profiler, for its time per stage. It runs apart
 * from the timed rounds because the sampler costs the server CPU of its own: the CPU per request
 * is measured without it, and the profile only says how that CPU divides between stages.
 */
async function profileStages(target: Target): Promise<{ stages: StageMicros; phases: PhaseCounts | undefined }> {
  await ask(target.process, "profile-start", "profiling");
  const counted = await phaseCountsOf(target.process);
  const samples: Samples = { latencies: [], errors: 0, non2xx: 0 };
  await paced(target, rate, profileSeconds, samples);
  const phases = phasesPerRequest(counted, await phaseCountsOf(target.process), Math.max(1, samples.latencies.length));
  const stages = await ask<StageMicros & { plan?: number }>(target.process, "profile-stop", "stages");
  // A build from before the routing stage got its name calls it "plan".
  const { plan, ...named } = stages;
  return { stages: plan === undefined ? stages : { ...named, routing: plan }, phases };
}

/** The median of some numbers (0 for none). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Saturation runs in rounds that take every target in turn, as the paced ones do, at each
 * connection count: req/s is all rounds' requests over their time, p50 and p99 the median of the
 * rounds' own.
 */
async function saturateInRounds(targets: Target[]): Promise<Array<Record<number, Measure>>> {
  const each = Math.max(2, Math.round(seconds / rounds));
  const runs = targets.map(() => new Map<number, Measure[]>());
  for (let r = 0; r < rounds; r++) {
    for (const count of connectionCounts) {
      for (const [i, target] of targets.entries()) {
        const measured = await saturate(target, count, each);
        const list = runs[i]?.get(count) ?? [];
        list.push(measured);
        runs[i]?.set(count, list);
      }
    }
  }
  return runs.map((byCount) =>
    Object.fromEntries(
      [...byCount].map(([count, list]) => {
        const requests = list.reduce((sum, m) => sum + m.requests, 0);
        return [
          count,
          {
            rps: requests / (each * list.length),
            p50: median(list.map((m) => m.p50)),
            p99: median(list.map((m) => m.p99)),
            errors: list.reduce((sum, m) => sum + m.errors, 0),
            non2xx: list.reduce((sum, m) => sum + m.non2xx, 0),
            requests,
          },
        ];
      }),
    ),
  );
}

/**
 * Warms every target up, times them at the paced rate in rounds (with their CPU time and the
 * garbage collector's work in the process), profiles the targets named in `profiled` at the same
 * rate, then saturates them in rounds at each connection count.
 */
async function measure(targets: Target[], profiled: string[] = []): Promise<Result[]> {
  // A short warm-up of each: connections, JIT, caches.
  for (const target of targets) await paced(target, 200, 2, { latencies: [], errors: 0, non2xx: 0 });
  const samples = targets.map(() => ({
    latencies: [] as number[],
    errors: 0,
    non2xx: 0,
    cpuMicros: 0,
    gcMicros: 0,
    collections: 0,
    allocatedBytes: 0,
    phases: undefined as PhaseCounts | undefined,
  }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, target] of targets.entries()) {
      const into = samples[i] as (typeof samples)[number];
      await ask(target.process, "gc-start", "gcStarted");
      const counted = await phaseCountsOf(target.process);
      const cpuBefore = await cpuOf(target.process);
      await paced(target, rate, seconds / rounds, into);
      into.cpuMicros += (await cpuOf(target.process)) - cpuBefore;
      const ran = phasesPerRequest(counted, await phaseCountsOf(target.process), 1);
      if (ran) into.phases = { inline: (into.phases?.inline ?? 0) + ran.inline, pool: (into.phases?.pool ?? 0) + ran.pool };
      const gc = await ask<GcWindow>(target.process, "gc-stop", "gc");
      into.gcMicros += gc.gcMicros;
      into.collections += gc.collections;
      into.allocatedBytes += gc.allocatedBytes;
    }
  }
  const stages = new Map<string, Awaited<ReturnType<typeof profileStages>>>();
  for (const target of targets) if (profiled.includes(target.name)) stages.set(target.name, await profileStages(target));
  const saturated = await saturateInRounds(targets);
  const results: Result[] = [];
  for (const [i, target] of targets.entries()) {
    const into = samples[i] as (typeof samples)[number];
    const pacedMeasure = summary(into, seconds);
    const requests = Math.max(1, pacedMeasure.requests);
    const cpuMicrosPerRequest = into.cpuMicros / requests;
    const throughputAt = saturated[i] as Record<number, Measure>;
    const throughput = throughputAt[connections] as Measure;
    const gc = {
      micros: into.gcMicros / requests,
      collections: into.collections / requests,
      allocatedBytes: into.allocatedBytes / requests,
    };
    results.push({
      ...target,
      throughput,
      throughputAt,
      paced: pacedMeasure,
      cpuMicrosPerRequest,
      gc,
      stages: stages.get(target.name)?.stages,
    });
    const pacedPhases = into.phases && phasesPerRequest({ inline: 0, pool: 0 }, into.phases, requests);
    const profiledPhases = stages.get(target.name)?.phases;
    if (pacedPhases || profiledPhases)
      (results.at(-1) as Result).phases = {
        ...(pacedPhases && { paced: pacedPhases }),
        ...(profiledPhases && { profiled: profiledPhases }),
      };
    const pooled =
      pacedPhases && pacedPhases.inline + pacedPhases.pool > 0
        ? `, phases per request inline ${pacedPhases.inline} / pool ${pacedPhases.pool}`
        : "";
    const pooledProfiled =
      profiledPhases && profiledPhases.inline + profiledPhases.pool > 0
        ? ` (profiled: ${profiledPhases.inline} / ${profiledPhases.pool})`
        : "";
    process.stdout.write(
      `${target.name.padEnd(28)} ${connectionCounts.map((c) => `${round(throughputAt[c]?.rps ?? 0, 0)} req/s at ${c}`).join(", ")}; at ${rate} req/s p50 ${pacedMeasure.p50} ms, ` +
        `p99 ${pacedMeasure.p99} ms, ${round(cpuMicrosPerRequest, 0)} µs CPU, ${round(gc.micros, 1)} µs GC, ${round(gc.allocatedBytes / 1024, 1)} KB allocated per request${pooled}${pooledProfiled}\n`,
    );
  }
  return results;
}

/** The rows whose CPU is divided between stages by a profile: guardgate as `guardgate serve` runs it. */
const STAGE_ROWS = ["guardgate, no guardrails", "guardgate, standard pack"];
/** With `BENCH_BEFORE`, the other build's rows are profiled too, for a before/after by stage. */
const STAGE_ROWS_BEFORE = [...STAGE_ROWS, "guardgate before, no guardrails", "guardgate before, standard pack"];

/** Each profiled row's CPU per request by stage, with the profiled time it was divided by. */
function stageRows(results: Result[]) {
  return results.flatMap(({ name, stages, cpuMicrosPerRequest, phases }) => {
    if (!stages) return [];
    const perRequest = stageCpuPerRequest(stages, cpuMicrosPerRequest);
    return [
      {
        target: name,
        cpu_us_per_request: round(cpuMicrosPerRequest, 0),
        profiled_busy_ms: round(STAGES.reduce((sum, stage) => sum + stages[stage], 0) / 1000, 0),
        stages_cpu_us: Object.fromEntries(STAGES.map((stage) => [stage, round(perRequest[stage], 1)])) as StageMicros,
        ...(phases && { phases_per_request: phases }),
      },
    ];
  });
}

/**
 * Stage × row, CPU µs per request; with two rows, the second minus the first; with the other
 * build's two rows after them, each row minus its before.
 */
function stageTable(rows: ReturnType<typeof stageRows>): string {
  const pairs: Array<[string, (typeof rows)[number], (typeof rows)[number]]> = [];
  const [first, second, third, fourth] = rows;
  if (rows.length === 2 && first && second) pairs.push(["difference", first, second]);
  if (rows.length === 4 && first && second && third && fourth)
    pairs.push(["no guardrails, after − before", third, first], ["standard pack, after − before", fourth, second]);
  const cell = (n: number) => n.toFixed(1);
  const extra = (of: (row: (typeof rows)[number]) => number) =>
    pairs.map(([, from, to]) => ` ${cell(of(to) - of(from))} |`).join("");
  return [
    `| stage | ${rows.map((r) => r.target).join(" | ")} |${pairs.map(([name]) => ` ${name} |`).join("")}`,
    `|---|${rows.map(() => "---:|").join("")}${pairs.map(() => "---:|").join("")}`,
    ...STAGES.map(
      (stage) =>
        `| ${stage} | ${rows.map((r) => cell(r.stages_cpu_us[stage])).join(" | ")} |${extra((r) => r.stages_cpu_us[stage])}`,
    ),
    `| total | ${rows.map((r) => r.cpu_us_per_request).join(" | ")} |${extra((r) => r.cpu_us_per_request)}`,
    `| phases to the pool per request, timed / profiled | ${rows.map((r) => `${r.phases_per_request?.paced?.pool ?? "–"} / ${r.phases_per_request?.profiled?.pool ?? "–"}`).join(" | ")} |${pairs.map(() => " |").join("")}`,
    "",
    `CPU µs per request of the \`guardgate serve\` process: each stage's share of a V8 CPU profile (main thread, ${rate} req/s for ${profileSeconds} s, idle left out) times the row's CPU per request measured without the profiler. Time in Node, fastify, undici and V8 is charged to the nearest guardgate frame that called it; "framework" is time with no guardgate frame on the stack (socket and HTTP handling, garbage collection).`,
  ].join("\n");
}

/** The most translation may add to guardgate's CPU time per request, over passthrough. */
const TRANSLATION_CPU_MAX = 1.15;

/** Each translated row beside its passthrough row: CPU per request and the ratio. */
function translationRows(results: Result[]) {
  return (["no guardrails", "standard pack"] as const).flatMap((guardrails) => {
    const passthrough = results.find((r) => r.name === `guardgate, ${guardrails}`);
    const translated = results.find((r) => r.name === `guardgate, translated to Anthropic, ${guardrails}`);
    if (!passthrough || !translated) return [];
    const ratio = translated.cpuMicrosPerRequest / passthrough.cpuMicrosPerRequest;
    return [
      {
        guardrails,
        passthrough_cpu_us: round(passthrough.cpuMicrosPerRequest, 0),
        translated_cpu_us: round(translated.cpuMicrosPerRequest, 0),
        cpu_ratio: round(ratio),
        passthrough_p50_ms: passthrough.paced.p50,
        translated_p50_ms: translated.paced.p50,
        passthrough_rps: round(passthrough.throughput.rps, 0),
        translated_rps: round(translated.throughput.rps, 0),
        met: ratio <= TRANSLATION_CPU_MAX,
      },
    ];
  });
}

function translationTable(rows: ReturnType<typeof translationRows>): string {
  return [
    "| guardrails | passthrough CPU (µs/req) | translated CPU (µs/req) | translated vs passthrough | p50 passthrough / translated (ms) | throughput passthrough / translated (req/s) |",
    "|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.guardrails} | ${r.passthrough_cpu_us} | ${r.translated_cpu_us} | ${r.cpu_ratio.toFixed(2)} | ${r.passthrough_p50_ms} / ${r.translated_p50_ms} | ${r.passthrough_rps} / ${r.translated_rps} |`,
    ),
    "",
    `Target: translated ≤ ${TRANSLATION_CPU_MAX.toFixed(2)}× passthrough CPU per request — ${rows.every((r) => r.met) ? "met" : "not met"}.`,
  ].join("\n");
}

/**
 * The translation's own CPU per request, in this process: the benchmark's chat request turned into
 * a Messages request and the fake upstream's answer into a chat completion, as the chat translation does (server/providers/send.ts),
 * without the network and the pipeline around it (which a passthrough request pays too).
 */
async function translationMicros(): Promise<number> {
  const request = JSON.parse(body) as Json;
  const call: ProviderCall = {
    endpoint: ENDPOINTS.find((e) => e.route === "/v1/chat/completions") as Endpoint,
    body: request,
    text: body,
    stream: false,
    headers: {},
    provider: {
      kind: "http",
      name: "anthropic",
      options: {},
      baseUrl: "http://127.0.0.1/v1",
      trusted: true,
      headers: {},
      identity: "",
    },
    dropParams: false,
  };
  const answer = JSON.stringify(answerBody("/v1/messages", request, `echo: ${prompt}`));
  const once = async () => {
    const chat = keptParameters(openAiCodec.toChat(request, call), ANTHROPIC_CHAT.parameters, call);
    const native = await ANTHROPIC_CHAT.request(chat, call);
    const completion = JSON.stringify(openAiCodec.fromChat(ANTHROPIC_CHAT.response(JSON.parse(answer) as Json, chat), request));
    return native.body.length + completion.length;
  };
  for (let i = 0; i < 20_000; i++) await once();
  const runs = 100_000;
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) await once();
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / runs, 1);
}

/** `--translation`: guardgate's passthrough and translated rows alone. */
async function translationOnly(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  const servePort = await spawnServer("serve", [String(upstreamPort), executor]);
  const serveProcess = children.at(-1) as ChildProcess;
  const results = await measure(
    gatewayTargets("guardgate", servePort, serveProcess, ["none", "translated", "pack", "translated-pack"]),
  );
  const rows = translationRows(results);
  const ownMicros = await translationMicros();
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { seconds, connections, paced_rate_rps: rate, latency_rounds: rounds, executor },
    translation: rows,
    translation_code_cpu_us_per_request: ownMicros,
  };
  const markdown = [
    "# Gateway benchmark: translation",
    "",
    `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}, load average ${report.machine.loadavg_1m} at the end.`,
    `The same ${Buffer.byteLength(body)}-byte OpenAI chat request to the same fake upstream, as an OpenAI provider (passthrough) and as an Anthropic one (translated both ways); CPU time of the \`guardgate serve\` process per request at a fixed ${rate} req/s for ${seconds} s.`,
    "",
    translationTable(rows),
    "",
    `The translation's own code (request out, answer back, in one process without the network): ${ownMicros} µs of CPU per request.`,
    "",
  ].join("\n");
  await writeResults("gateway-translation", report, markdown);
}

/** Each target after the floor beside the floor (the first of `measured`), latency added over the direct upstream call. */
function comparisonRows(direct: Result, measured: Result[]) {
  const floorResult = measured[0] as Result;
  const floorAddedP50 = Math.max(0, floorResult.paced.p50 - direct.paced.p50);
  const ratio = (a: number, b: number) => (b > 0 ? round(a / b) : null);
  return measured.map((r) => {
    const addedP50 = Math.max(0, r.paced.p50 - direct.paced.p50);
    const addedP99 = Math.max(0, r.paced.p99 - direct.paced.p99);
    // guardgate's row beside the peer's with the same guardrails.
    const peer = /^guardgate( before)?, /.test(r.name)
      ? measured.find((m) => m.name === r.name.replace(/^guardgate( before)?, /, "peer gateway, "))
      : undefined;
    return {
      target: r.name,
      throughput_by_connections: Object.fromEntries(connectionCounts.map((c) => [c, round(r.throughputAt[c]?.rps ?? 0, 0)])),
      throughput_rps: round(r.throughput.rps, 0),
      throughput_vs_floor: round(r.throughput.rps / floorResult.throughput.rps),
      cpu_us_per_request: round(r.cpuMicrosPerRequest, 0),
      cpu_vs_floor: round(r.cpuMicrosPerRequest / floorResult.cpuMicrosPerRequest),
      throughput_p50_ms: r.throughput.p50,
      throughput_p99_ms: r.throughput.p99,
      throughput_p99_vs_floor: ratio(r.throughput.p99, floorResult.throughput.p99),
      paced_p50_ms: r.paced.p50,
      paced_p99_ms: r.paced.p99,
      added_p50_ms: round(addedP50, 3),
      added_p99_ms: round(addedP99, 3),
      // A floor that adds nothing measurable would make the ratio meaningless.
      added_p50_vs_floor: floorAddedP50 > 0 ? round(addedP50 / floorAddedP50) : null,
      gc_us_per_request: round(r.gc.micros, 2),
      gc_collections_per_1000_requests: round(r.gc.collections * 1000, 1),
      allocated_kb_per_request: round(r.gc.allocatedBytes / 1024, 1),
      gc_vs_floor: ratio(r.gc.micros, floorResult.gc.micros),
      allocated_vs_floor: ratio(r.gc.allocatedBytes, floorResult.gc.allocatedBytes),
      vs_peer: peer
        ? {
            throughput: ratio(r.throughput.rps, peer.throughput.rps),
            throughput_1: ratio(
              r.throughputAt[connectionCounts[0] as number]?.rps ?? 0,
              peer.throughputAt[connectionCounts[0] as number]?.rps ?? 0,
            ),
            cpu: ratio(r.cpuMicrosPerRequest, peer.cpuMicrosPerRequest),
          }
        : null,
      errors: r.throughput.errors + r.paced.errors,
      non_2xx: r.throughput.non2xx + r.paced.non2xx,
    };
  });
}

/** The comparison rows as a markdown table; `reference` names the first row the ratios are taken to. */
function comparisonTable(rows: ReturnType<typeof comparisonRows>, reference = "floor"): string {
  const fixed = (n: number | null) => (n === null ? "n/a" : n.toFixed(2));
  return [
    `| target | ${connectionCounts.map((c) => `req/s at ${c}`).join(" | ")} | vs ${reference} | p50 / p99 at ${connections} (ms) | p99 vs ${reference} | p50 / p99 at ${rate} req/s (ms) | CPU µs/req at ${rate} req/s | CPU vs ${reference} | GC µs/req | KB allocated/req | vs peer: req/s at ${connections} / at ${connectionCounts[0]} / CPU |`,
    `|---|${connectionCounts.map(() => "---:|").join("")}---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
    ...rows.map(
      (r) =>
        `| ${r.target} | ${connectionCounts.map((c) => r.throughput_by_connections[c]).join(" | ")} | ${r.throughput_vs_floor.toFixed(2)} | ${r.throughput_p50_ms} / ${r.throughput_p99_ms} | ${fixed(r.throughput_p99_vs_floor)} | ${r.paced_p50_ms} / ${r.paced_p99_ms} | ${r.cpu_us_per_request} | ${r.cpu_vs_floor.toFixed(2)} | ${r.gc_us_per_request} | ${r.allocated_kb_per_request} | ${
          r.vs_peer ? `${fixed(r.vs_peer.throughput)} / ${fixed(r.vs_peer.throughput_1)} / ${fixed(r.vs_peer.cpu)}` : ""
        } |`,
    ),
  ].join("\n");
}

/** The targets of the request path, against the floor and the peer in the same run. */
const PATH_TARGETS = [
  { target: "guardgate, no guardrails", measure: "throughput_vs_floor", at_least: 0.6 },
  { target: "guardgate, standard pack", measure: "throughput_vs_floor", at_least: 0.4 },
  { target: "guardgate, standard pack", measure: "throughput_vs_peer", at_least: 3 },
  { target: "guardgate, standard pack", measure: "cpu_vs_floor", at_most: 1.6 },
  { target: "guardgate, standard pack", measure: "throughput_p99_vs_floor", at_most: 2.5 },
] as const;

/** How each measure of the targets is named in the report. */
const MEASURE_NAMES: Record<(typeof PATH_TARGETS)[number]["measure"], string> = {
  throughput_vs_floor: `throughput at ${connections} connections vs floor`,
  throughput_vs_peer: `throughput at ${connections} connections vs peer`,
  cpu_vs_floor: `CPU per request at ${rate} req/s vs floor`,
  throughput_p99_vs_floor: `p99 at ${connections} connections vs floor`,
};

/** Each path target with the run's figure and whether it was met. */
function pathTargets(rows: ReturnType<typeof comparisonRows>) {
  return PATH_TARGETS.map((t) => {
    const row = rows.find((r) => r.target === t.target);
    const figure = !row ? null : t.measure === "throughput_vs_peer" ? (row.vs_peer?.throughput ?? null) : row[t.measure];
    const met = figure !== null && ("at_least" in t ? figure >= t.at_least : figure <= t.at_most);
    return { ...t, figure, met };
  });
}

/** The path targets as a markdown table. */
function targetTable(targets: ReturnType<typeof pathTargets>): string {
  return [
    "| target | measure | goal | this run | met |",
    "|---|---|---:|---:|---|",
    ...targets.map(
      (t) =>
        `| ${t.target} | ${MEASURE_NAMES[t.measure]} | ${"at_least" in t ? `≥ ${t.at_least}` : `≤ ${t.at_most}`} | ${t.figure ?? "n/a"} | ${t.met ? "yes" : "no"} |`,
    ),
  ].join("\n");
}

/**
 * `--stages`: the floor and guardgate's rows with and without the pack, profiled by stage, with
 * the path targets; short enough to run beside other work (bench/results/gateway-stages.*).
 */
async function stagesOnly(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  // Chosen first, so every child is forked (and listed in `children`) in the order written here.
  const peerFree = await freePort();
  const [floorPort, servePort, peerPort, beforePort] = await Promise.all([
    spawnServer("floor", [String(upstreamPort)]),
    spawnServer("serve", [String(upstreamPort), executor]),
    spawnPeer(peerFree),
    before ? spawnServer("serve", [String(upstreamPort), executor], before) : Promise.resolve(0),
  ]);
  const [upstreamProcess, floorProcess, serveProcess, peerProcess, beforeProcess] = children as [
    ChildProcess,
    ChildProcess,
    ChildProcess,
    ChildProcess,
    ChildProcess | undefined,
  ];
  const results = await measure(
    [
      { name: "direct upstream", url: chat(upstreamPort), headers: {}, process: upstreamProcess },
      { name: "floor proxy", url: chat(floorPort), headers: {}, process: floorProcess },
      ...gatewayTargets("guardgate", servePort, serveProcess, ["none", "pack"]),
      ...peerTargets(peerPort, upstreamPort, peerProcess),
      ...(beforeProcess ? gatewayTargets("guardgate before", beforePort, beforeProcess, ["none", "pack"]) : []),
    ],
    beforeProcess ? STAGE_ROWS_BEFORE : STAGE_ROWS,
  );
  const rows = comparisonRows(results[0] as Result, results.slice(1));
  const stages = stageRows(results);
  const targets = pathTargets(rows);
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      seconds,
      connections: connectionCounts,
      paced_rate_rps: rate,
      latency_rounds: rounds,
      profile_seconds: profileSeconds,
      executor,
    },
    peer: { package: "@portkey-ai/gateway", version: peerVersion() },
    rows,
    stages,
    targets,
  };
  const markdown = [
    "# Gateway benchmark: CPU per request by stage",
    "",
    `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}, load average ${report.machine.loadavg_1m} at the end.`,
    settings(),
    "",
    comparisonTable(rows),
    "",
    stageTable(stages),
    "",
    targetTable(targets),
    "",
  ].join("\n");
  await writeResults("gateway-stages", report, markdown);
}

/** guardgate's `/v1/responses` rows, one per saved config: passthrough (OpenAI provider) and translated (Anthropic). */
function responsesTargets(port: number, server: ChildProcess): Target[] {
  const names = {
    none: "Responses passthrough, no guardrails",
    pack: "Responses passthrough, standard pack",
    translated: "Responses translated to Anthropic, no guardrails",
    "translated-pack": "Responses translated to Anthropic, standard pack",
  } as const;
  return (Object.keys(names) as Array<keyof typeof names>).map((config) => ({
    name: `guardgate, ${names[config]}`,
    url: `http://127.0.0.1:${port}/v1/responses`,
    headers: { "x-gateway-api-key": BENCH_KEY, "x-gateway-config": config },
    process: server,
    body: responsesBody,
  }));
}

/** The header of a report: date, machine, load and settings. */
function reportHead(title: string, report: { date: string; machine: ReturnType<typeof machine> }): string[] {
  return [
    `# ${title}`,
    "",
    `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}, load average ${report.machine.loadavg_1m} at the end.`,
    settings(false),
  ];
}

/** `--responses`: the floor, guardgate's chat rows and its `/v1/responses` rows, in the same rounds. */
async function responsesOnly(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  const [floorPort, servePort] = await Promise.all([
    spawnServer("floor", [String(upstreamPort)]),
    spawnServer("serve", [String(upstreamPort), executor]),
  ]);
  const [upstreamProcess, floorProcess, serveProcess] = children as [ChildProcess, ChildProcess, ChildProcess];
  const results = await measure([
    { name: "direct upstream", url: chat(upstreamPort), headers: {}, process: upstreamProcess },
    { name: "floor proxy", url: chat(floorPort), headers: {}, process: floorProcess },
    ...gatewayTargets("guardgate", servePort, serveProcess, ["none", "pack"]),
    {
      name: "direct upstream, Responses",
      url: `http://127.0.0.1:${upstreamPort}/v1/responses`,
      headers: {},
      process: upstreamProcess,
      body: responsesBody,
    },
    ...responsesTargets(servePort, serveProcess),
  ]);
  const rows = comparisonRows(results[0] as Result, results.slice(1));
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { seconds, connections: connectionCounts, paced_rate_rps: rate, latency_rounds: rounds, executor },
    request_bytes: { chat: Buffer.byteLength(body), responses: Buffer.byteLength(responsesBody) },
    rows,
  };
  const markdown = [
    ...reportHead("Gateway benchmark: Responses", report),
    `The ${report.request_bytes.chat}-byte chat turn and the same turn as a ${report.request_bytes.responses}-byte Responses request; the fake upstream echoes it (a Response, or a Messages answer when translated), so each answer is about as long.`,
    "",
    comparisonTable(rows),
    "",
  ].join("\n");
  await writeResults("gateway-responses", report, markdown);
}

/** Requests/s, p50 and p99 at each connection count: one row per target. */
function concurrencyTable(rows: ReturnType<typeof comparisonRows>, results: Result[]): string {
  return [
    `| target | ${connectionCounts.map((c) => `req/s, p50 / p99 (ms) at ${c}`).join(" | ")} |`,
    `|---|${connectionCounts.map(() => "---:|").join("")}`,
    ...rows.map((r) => {
      const at = results.find((m) => m.name === r.target)?.throughputAt ?? {};
      return `| ${r.target} | ${connectionCounts.map((c) => `${round(at[c]?.rps ?? 0, 0)}, ${at[c]?.p50 ?? 0} / ${at[c]?.p99 ?? 0}`).join(" | ")} |`;
    }),
  ].join("\n");
}

/**
 * `--mcp`: one `tools/call` after another in one session, sent to the MCP server directly and
 * through guardgate's MCP gateway without and with the standard tool pack, as raw POSTs.
 */
async function mcpOnly(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  const mcpPort = await spawnServer("mcp-upstream");
  const servePort = await spawnServer("serve", [String(upstreamPort), executor, String(mcpPort)]);
  const [, mcpProcess, serveProcess] = children as [ChildProcess, ChildProcess, ChildProcess];
  const gatewayKey = { "x-gateway-api-key": BENCH_KEY };
  const session = async (
    name: string,
    url: string,
    server: ChildProcess,
    extra: Record<string, string> = {},
  ): Promise<Target> => ({
    name,
    url,
    headers: (await openMcpSession(url, extra)).headers,
    process: server,
    body: toolsCallBodies(),
  });
  const results = await measure([
    await session("MCP server directly", `http://127.0.0.1:${mcpPort}/mcp`, mcpProcess),
    await session("guardgate, MCP, no tool pack", `http://127.0.0.1:${servePort}/v1/mcp/bench`, serveProcess, gatewayKey),
    await session(
      "guardgate, MCP, standard tool pack",
      `http://127.0.0.1:${servePort}/v1/mcp/bench-pack`,
      serveProcess,
      gatewayKey,
    ),
  ]);
  const rows = comparisonRows(results[0] as Result, results);
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { seconds, connections: connectionCounts, paced_rate_rps: rate, latency_rounds: rounds, executor },
    rows,
  };
  const markdown = [
    ...reportHead("Gateway benchmark: MCP tools/call", report),
    "Raw JSON-RPC `tools/call` POSTs in one session per target (ids of their own), JSON answers, a result of about 1 KB; the direct row's own process is the MCP server.",
    "",
    comparisonTable(rows, "direct"),
    "",
    concurrencyTable(rows, results),
    "",
  ].join("\n");
  await writeResults("gateway-mcp", report, markdown);
}

/** The run's settings, one line for a report; `peer` when the peer gateway is among the rows. */
function settings(peer = true): string {
  return (
    `Throughput in ${rounds} rounds of ${Math.max(2, Math.round(seconds / rounds))} s at ${connectionCounts.join(" and ")} connections; latency, CPU and garbage at a fixed ${rate} req/s for ${seconds} s in ${rounds} rounds, every target in turn; ` +
    `guardgate as \`guardgate serve\` runs it (executor ${executor})${peer ? `; the peer gateway is ${"`@portkey-ai/gateway`"} ${peerVersion()}, its Node server as its package documents, the pack in its config header` : ""}. ` +
    "GC µs and KB allocated per request: the server process's main-thread heap over the paced runs (v8's GCProfiler)."
  );
}

async function main(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  // Chosen first, so every child is forked (and listed in `children`) in the order written here.
  const peerFree = await freePort();
  const [floorPort, servePort, appPort, peerPort] = await Promise.all([
    spawnServer("floor", [String(upstreamPort)]),
    spawnServer("serve", [String(upstreamPort), executor]),
    spawnServer("app", [String(upstreamPort)]),
    spawnPeer(peerFree),
  ]);
  const [upstreamProcess, floorProcess, serveProcess, appProcess, peerProcess] = children as [
    ChildProcess,
    ChildProcess,
    ChildProcess,
    ChildProcess,
    ChildProcess,
  ];
  const targets: Target[] = [
    { name: "direct upstream", url: chat(upstreamPort), headers: {}, process: upstreamProcess },
    { name: "floor proxy", url: chat(floorPort), headers: {}, process: floorProcess },
    ...gatewayTargets("guardgate", servePort, serveProcess, ["none", "pack", "translated", "translated-pack"]),
    ...gatewayTargets("bare app", appPort, appProcess, ["none", "pack"]),
    ...peerTargets(peerPort, upstreamPort, peerProcess),
  ];
  const results = await measure(targets, STAGE_ROWS);

  const direct = results[0] as (typeof results)[number];
  const rows = comparisonRows(direct, results.slice(1));
  const pack = rows.find((r) => r.target === "guardgate, standard pack");
  const translation = translationRows(results);
  const stages = stageRows(results);
  const streams = await measureStreams(streamDeps);
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: {
      seconds,
      connections: connectionCounts,
      paced_rate_rps: rate,
      latency_rounds: rounds,
      request_bytes: Buffer.byteLength(body),
      executor,
    },
    peer: { package: "@portkey-ai/gateway", version: peerVersion() },
    direct: {
      throughput_rps: round(direct.throughput.rps, 0),
      paced_p50_ms: direct.paced.p50,
      paced_p99_ms: direct.paced.p99,
      cpu_us_per_request: round(direct.cpuMicrosPerRequest, 0),
    },
    rows,
    stages,
    path_targets: pathTargets(rows),
    translation,
    streams,
    targets: {
      added_p50_vs_floor_max: 1.5,
      throughput_vs_floor_min: 0.6,
      met: pack ? (pack.added_p50_vs_floor === null || pack.added_p50_vs_floor <= 1.5) && pack.throughput_vs_floor >= 0.6 : false,
    },
  };

  const table = comparisonTable(rows);
  const markdown = [
    "# Gateway benchmark",
    "",
    `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}.`,
    `${settings()} A ${report.settings.request_bytes}-byte chat request whose answer is about as long.`,
    `guardgate runs as \`guardgate serve\` does (store with its SQLite request log, request gate, info-level log, executor ${executor}); the bare app is \`buildApp\` with in-memory sources and request log, the inline executor and warn-level log.`,
    `Direct upstream: ${report.direct.throughput_rps} req/s, p50 ${report.direct.paced_p50_ms} ms, p99 ${report.direct.paced_p99_ms} ms.`,
    "",
    table,
    "",
    `Targets with the standard pack: added p50 ≤ 1.5× the floor's, throughput ≥ 0.60 of the floor's — ${report.targets.met ? "met" : "not met"}.`,
    "",
    targetTable(report.path_targets),
    "",
    "## CPU per request by stage",
    "",
    stageTable(stages),
    "",
    translationTable(translation),
    "",
    streamTable(streams),
    "",
  ].join("\n");
  await writeResults("gateway", report, markdown);
}

(process.argv.includes("--fleet")
  ? runFleetBenchmark()
  : process.argv.includes("--streams")
    ? streamsOnly()
    : process.argv.includes("--translation")
      ? translationOnly()
      : process.argv.includes("--stages")
        ? stagesOnly()
        : process.argv.includes("--responses")
          ? responsesOnly()
          : process.argv.includes("--mcp")
            ? mcpOnly()
            : main()
)
  .catch((error: unknown) => {
    process.stderr.write(`bench:gateway failed: ${(error as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const child of children) child.kill();
    // The load generator's sockets may keep the loop alive after the run: leave once the servers had time to stop.
    setTimeout(() => process.exit(), 2_000).unref();
  });
