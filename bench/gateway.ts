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
 * Targets: with the standard pack on, added p50 ≤ 1.5× the floor's added p50, and throughput ≥
 * 60% of the floor's, for guardgate as `guardgate serve` runs it.
 *
 * guardgate's rows with and without the pack are also profiled (stage-profile.ts): one more paced
 * run each under the V8 CPU profiler divides their CPU per request between the stages of the
 * request path (intake, plan, enforce, call, relay, record). With `--stages`, only the floor and
 * those two rows are measured, with the path targets: no guardrails ≥ 0.6 and the pack ≥ 0.4 of
 * the floor's throughput, the pack's CPU per request ≤ 1.6× the floor's at the paced rate
 * (bench/results/gateway-stages.*).
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
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
import { STAGES, type StageMicros, stageCpuPerRequest } from "./stage-profile.js";
import { measureStreams, type StreamBenchDeps, streamTable } from "./streams.js";

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const rate = Number(process.env.BENCH_RATE ?? 200);
/** Latency rounds; each times every target for `seconds / rounds`. */
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
/** The serve command's `--executor`; its default unless set. */
const executor = process.env.BENCH_EXECUTOR ?? "auto";

const children: ChildProcess[] = [];

/** Sends a server process a request and resolves with the field `key` of its answer (gateway-servers.ts). */
function ask<T>(child: ChildProcess, request: string, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (typeof message !== "object" || message === null) return;
      const m = message as Record<string, unknown>;
      if (typeof m.profileError === "string") {
        child.off("message", onMessage);
        reject(new Error(`${request}: ${m.profileError}`));
      }
      if (!(key in m)) return;
      child.off("message", onMessage);
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

function spawnServer(role: string, args: string[] = []): Promise<number> {
  const child = fork(path.join(here, "gateway-servers.js"), [role, ...args], {
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
const prompt = `${"My order arrived damaged and the box was open. ".repeat(20)}What should I do next?`;
const body = JSON.stringify({ model: "gpt-bench", max_tokens: 256, messages: [{ role: "user", content: prompt }] });

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The process serving the target, whose CPU time per request is measured. */
  process: ChildProcess;
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

/** Maximum throughput: autocannon at a fixed number of connections. */
function saturate(target: Target): Promise<Measure> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers },
        body,
        duration: seconds,
        connections,
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
          body,
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
  throughput: Measure;
  paced: Measure;
  cpuMicrosPerRequest: number;
  /** Profiled time per stage, for the targets asked to be profiled. */
  stages?: StageMicros;
};

/**
 * One more paced run of a target under the V8 CPU profiler, for its time per stage. It runs apart
 * from the timed rounds because the sampler costs the server CPU of its own: the CPU per request
 * is measured without it, and the profile only says how that CPU divides between stages.
 */
async function profileStages(target: Target): Promise<StageMicros> {
  await ask(target.process, "profile-start", "profiling");
  await paced(target, rate, seconds / rounds, { latencies: [], errors: 0, non2xx: 0 });
  return ask<StageMicros>(target.process, "profile-stop", "stages");
}

/**
 * Warms every target up, times them at the paced rate in rounds (with their CPU time), profiles
 * the targets named in `profiled` at the same rate, then saturates each.
 */
async function measure(targets: Target[], profiled: string[] = []): Promise<Result[]> {
  // A short warm-up of each: connections, JIT, caches.
  for (const target of targets) await paced(target, 200, 2, { latencies: [], errors: 0, non2xx: 0 });
  const samples = targets.map(() => ({ latencies: [] as number[], errors: 0, non2xx: 0, cpuMicros: 0 }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, target] of targets.entries()) {
      const into = samples[i] as (typeof samples)[number];
      const cpuBefore = await cpuOf(target.process);
      await paced(target, rate, seconds / rounds, into);
      into.cpuMicros += (await cpuOf(target.process)) - cpuBefore;
    }
  }
  const stages = new Map<string, StageMicros>();
  for (const target of targets) if (profiled.includes(target.name)) stages.set(target.name, await profileStages(target));
  const results: Result[] = [];
  for (const [i, target] of targets.entries()) {
    const into = samples[i] as (typeof samples)[number];
    const pacedMeasure = summary(into, seconds);
    const cpuMicrosPerRequest = into.cpuMicros / Math.max(1, pacedMeasure.requests);
    const throughput = await saturate(target);
    results.push({ ...target, throughput, paced: pacedMeasure, cpuMicrosPerRequest, stages: stages.get(target.name) });
    process.stdout.write(
      `${target.name.padEnd(28)} ${round(throughput.rps, 0)} req/s at ${connections} connections; at ${rate} req/s p50 ${pacedMeasure.p50} ms, ` +
        `p99 ${pacedMeasure.p99} ms, ${round(cpuMicrosPerRequest, 0)} µs CPU per request\n`,
    );
  }
  return results;
}

/** The rows whose CPU is divided between stages by a profile: guardgate as `guardgate serve` runs it. */
const STAGE_ROWS = ["guardgate, no guardrails", "guardgate, standard pack"];

/** Each profiled row's CPU per request by stage, with the profiled time it was divided by. */
function stageRows(results: Result[]) {
  return results.flatMap(({ name, stages, cpuMicrosPerRequest }) => {
    if (!stages) return [];
    const perRequest = stageCpuPerRequest(stages, cpuMicrosPerRequest);
    return [
      {
        target: name,
        cpu_us_per_request: round(cpuMicrosPerRequest, 0),
        profiled_busy_ms: round(STAGES.reduce((sum, stage) => sum + stages[stage], 0) / 1000, 0),
        stages_cpu_us: Object.fromEntries(STAGES.map((stage) => [stage, round(perRequest[stage], 1)])) as StageMicros,
      },
    ];
  });
}

/** Stage × row, CPU µs per request; with two rows, the second minus the first. */
function stageTable(rows: ReturnType<typeof stageRows>): string {
  const [first, second] = rows;
  const difference = rows.length === 2 && first && second;
  const cell = (n: number) => n.toFixed(1);
  return [
    `| stage | ${rows.map((r) => r.target).join(" | ")} |${difference ? " difference |" : ""}`,
    `|---|${rows.map(() => "---:|").join("")}${difference ? "---:|" : ""}`,
    ...STAGES.map(
      (stage) =>
        `| ${stage} | ${rows.map((r) => cell(r.stages_cpu_us[stage])).join(" | ")} |${
          difference ? ` ${cell(second.stages_cpu_us[stage] - first.stages_cpu_us[stage])} |` : ""
        }`,
    ),
    `| total | ${rows.map((r) => r.cpu_us_per_request).join(" | ")} |${difference ? ` ${second.cpu_us_per_request - first.cpu_us_per_request} |` : ""}`,
    "",
    `CPU µs per request of the \`guardgate serve\` process: each stage's share of a V8 CPU profile (main thread, ${rate} req/s for ${seconds / rounds} s, idle left out) times the row's CPU per request measured without the profiler. Time in Node, fastify, undici and V8 is charged to the nearest guardgate frame that called it; "framework" is time with no guardgate frame on the stack (socket and HTTP handling, garbage collection).`,
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
  return measured.map((r) => {
    const addedP50 = Math.max(0, r.paced.p50 - direct.paced.p50);
    const addedP99 = Math.max(0, r.paced.p99 - direct.paced.p99);
    const floorAddedP50 = Math.max(0, floorResult.paced.p50 - direct.paced.p50);
    return {
      target: r.name,
      throughput_rps: round(r.throughput.rps, 0),
      throughput_vs_floor: round(r.throughput.rps / floorResult.throughput.rps),
      cpu_us_per_request: round(r.cpuMicrosPerRequest, 0),
      cpu_vs_floor: round(r.cpuMicrosPerRequest / floorResult.cpuMicrosPerRequest),
      throughput_p50_ms: r.throughput.p50,
      throughput_p99_ms: r.throughput.p99,
      paced_p50_ms: r.paced.p50,
      paced_p99_ms: r.paced.p99,
      added_p50_ms: round(addedP50, 3),
      added_p99_ms: round(addedP99, 3),
      // A floor that adds nothing measurable would make the ratio meaningless.
      added_p50_vs_floor: floorAddedP50 > 0 ? round(addedP50 / floorAddedP50) : null,
      errors: r.throughput.errors + r.paced.errors,
      non_2xx: r.throughput.non2xx + r.paced.non2xx,
    };
  });
}

/** The comparison rows as a markdown table. */
function comparisonTable(rows: ReturnType<typeof comparisonRows>): string {
  return [
    "| target | throughput (req/s) | vs floor | added p50 (ms) | added p99 (ms) | added p50 vs floor | CPU per request (µs) | CPU vs floor |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.target} | ${r.throughput_rps} | ${r.throughput_vs_floor.toFixed(2)} | ${r.added_p50_ms} | ${r.added_p99_ms} | ${
          r.added_p50_vs_floor === null ? "n/a" : r.added_p50_vs_floor.toFixed(2)
        } | ${r.cpu_us_per_request} | ${r.cpu_vs_floor.toFixed(2)} |`,
    ),
  ].join("\n");
}

/** The throughput and CPU targets of the request path, against the floor in the same run. */
const PATH_TARGETS = [
  { target: "guardgate, no guardrails", measure: "throughput_vs_floor", at_least: 0.6 },
  { target: "guardgate, standard pack", measure: "throughput_vs_floor", at_least: 0.4 },
  { target: "guardgate, standard pack", measure: "cpu_vs_floor", at_most: 1.6 },
] as const;

/** Each path target with the run's figure and whether it was met. */
function pathTargets(rows: ReturnType<typeof comparisonRows>) {
  return PATH_TARGETS.map((t) => {
    const figure = rows.find((r) => r.target === t.target)?.[t.measure] ?? null;
    const met = figure !== null && ("at_least" in t ? figure >= t.at_least : figure <= t.at_most);
    return { ...t, figure, met };
  });
}

/**
 * `--stages`: the floor and guardgate's rows with and without the pack, profiled by stage, with
 * the path targets; short enough to run beside other work (bench/results/gateway-stages.*).
 */
async function stagesOnly(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  const [floorPort, servePort] = await Promise.all([
    spawnServer("floor", [String(upstreamPort)]),
    spawnServer("serve", [String(upstreamPort), executor]),
  ]);
  const [upstreamProcess, floorProcess, serveProcess] = children as [ChildProcess, ChildProcess, ChildProcess];
  const results = await measure(
    [
      { name: "direct upstream", url: chat(upstreamPort), headers: {}, process: upstreamProcess },
      { name: "floor proxy", url: chat(floorPort), headers: {}, process: floorProcess },
      ...gatewayTargets("guardgate", servePort, serveProcess, ["none", "pack"]),
    ],
    STAGE_ROWS,
  );
  const rows = comparisonRows(results[0] as Result, results.slice(1));
  const stages = stageRows(results);
  const targets = pathTargets(rows);
  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    settings: { seconds, connections, paced_rate_rps: rate, latency_rounds: rounds, executor },
    rows,
    stages,
    targets,
  };
  const markdown = [
    "# Gateway benchmark: CPU per request by stage",
    "",
    `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}, load average ${report.machine.loadavg_1m} at the end.`,
    `Throughput at ${connections} connections for ${seconds} s; latency and CPU at a fixed ${rate} req/s for ${seconds} s in ${rounds} rounds; guardgate as \`guardgate serve\` runs it (executor ${executor}).`,
    "",
    comparisonTable(rows),
    "",
    stageTable(stages),
    "",
    "| target | measure | goal | this run | met |",
    "|---|---|---:|---:|---|",
    ...targets.map(
      (t) =>
        `| ${t.target} | ${t.measure === "cpu_vs_floor" ? "CPU per request vs floor" : "throughput vs floor"} | ${"at_least" in t ? `≥ ${t.at_least}` : `≤ ${t.at_most}`} | ${t.figure ?? "n/a"} | ${t.met ? "yes" : "no"} |`,
    ),
    "",
  ].join("\n");
  await writeResults("gateway-stages", report, markdown);
}

async function main(): Promise<void> {
  const upstreamPort = await spawnServer("upstream");
  const [floorPort, servePort, appPort] = await Promise.all([
    spawnServer("floor", [String(upstreamPort)]),
    spawnServer("serve", [String(upstreamPort), executor]),
    spawnServer("app", [String(upstreamPort)]),
  ]);
  const [upstreamProcess, floorProcess, serveProcess, appProcess] = children as [
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
      connections,
      paced_rate_rps: rate,
      latency_rounds: rounds,
      request_bytes: Buffer.byteLength(body),
      executor,
    },
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
    `Throughput at ${connections} connections for ${seconds} s; latency at a fixed ${rate} req/s for ${seconds} s, measured first, in ${rounds} rounds that take every target in turn; a ${report.settings.request_bytes}-byte chat request whose answer is about as long.`,
    `guardgate runs as \`guardgate serve\` does (store with its SQLite request log, request gate, info-level log, executor ${executor}); the bare app is \`buildApp\` with in-memory sources and request log, the inline executor and warn-level log.`,
    `Direct upstream: ${report.direct.throughput_rps} req/s, p50 ${report.direct.paced_p50_ms} ms, p99 ${report.direct.paced_p99_ms} ms.`,
    "",
    table,
    "",
    `Targets with the standard pack: added p50 ≤ 1.5× the floor's, throughput ≥ 0.60 of the floor's — ${report.targets.met ? "met" : "not met"}.`,
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
