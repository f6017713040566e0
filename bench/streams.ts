/**
 * The streaming rows of `npm run bench:gateway`: time to first token and total time of a
 * 2,000-token streamed chat answer through the floor, guardgate with no guardrails, and guardgate
 * with the standard pack's output guardrail in each stream mode (and `window` at several window
 * sizes, which is what the default window is chosen by); then a 200,000-character answer in
 * `window` and in `buffer` mode, whose CPU per stream shows window checks growing linearly with
 * the stream (window mode within 3× buffer mode's). Requests run one at a time, in rounds
 * that take every target in turn, so a busy moment of the machine falls on all of them alike.
 */
import type { ChildProcess } from "node:child_process";
import { Pool } from "undici";
import { BENCH_KEY, LONG_STREAM_CHARS, LONG_STREAM_CONFIGS, STREAM_CONFIGS, STREAM_TOKENS } from "./gateway-servers.js";

/** Requests per target (after one warm-up). */
const requests = Number(process.env.BENCH_STREAM_REQUESTS ?? 6);

/** One streaming row. */
export interface StreamRow {
  target: string;
  ttft_p50_ms: number;
  ttft_max_ms: number;
  total_p50_ms: number;
  /** Time to first token beyond the direct upstream's. */
  added_ttft_ms: number;
  added_total_ms: number;
  cpu_us_per_request: number;
  errors: number;
}

/** What the streaming rows need from the benchmark around them. */
export interface StreamBenchDeps {
  spawnServer(role: string, args?: string[]): Promise<{ port: number; process: ChildProcess }>;
  cpuOf(child: ChildProcess): Promise<number>;
}

interface StreamTarget {
  name: string;
  port: number;
  headers: Record<string, string>;
  process: ChildProcess;
  /** The request body, when not the 2,000-token one. */
  body?: string;
}

const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "Tell me a long story." }] });
const longBody = JSON.stringify({ ...(JSON.parse(body) as Record<string, unknown>), max_tokens: LONG_STREAM_CHARS });
const FIRST_TOKEN = Buffer.from('"delta":{"content":"');

/** One streamed request: when its first token arrived, and when it ended. */
async function timeStream(pool: Pool, target: StreamTarget): Promise<{ ttft: number; total: number; ok: boolean }> {
  const sent = performance.now();
  const response = await pool.request({
    path: "/v1/chat/completions",
    method: "POST",
    headers: { "content-type": "application/json", ...target.headers },
    body: target.body ?? body,
  });
  let ttft = Number.NaN;
  let tail = Buffer.alloc(0);
  for await (const chunk of response.body) {
    if (Number.isNaN(ttft)) {
      // A token's marker may straddle two reads.
      const seen = Buffer.concat([tail, chunk as Buffer]);
      if (seen.includes(FIRST_TOKEN)) ttft = performance.now() - sent;
      tail = seen.subarray(Math.max(0, seen.length - FIRST_TOKEN.length));
    }
  }
  return { ttft, total: performance.now() - sent, ok: response.statusCode === 200 && !Number.isNaN(ttft) };
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs the streaming rows against their own upstream, floor and `guardgate serve`. */
export async function measureStreams(deps: StreamBenchDeps): Promise<StreamRow[]> {
  const upstream = await deps.spawnServer("stream-upstream");
  const [floor, serve] = await Promise.all([
    deps.spawnServer("floor", [String(upstream.port)]),
    deps.spawnServer("serve", [String(upstream.port), "auto"]),
  ]);
  const gateway = (name: string, config: string): StreamTarget => ({
    name,
    port: serve.port,
    headers: { "x-gateway-api-key": BENCH_KEY, "x-gateway-config": config },
    process: serve.process,
  });
  const targets: StreamTarget[] = [
    { name: "direct upstream", port: upstream.port, headers: {}, process: upstream.process },
    { name: "floor proxy", port: floor.port, headers: {}, process: floor.process },
    gateway("guardgate, no guardrails", "none"),
    ...Object.keys(STREAM_CONFIGS).map((id) => {
      const [, mode, window] = id.split("-");
      return gateway(
        `guardgate, pack, ${mode}${window ? ` (window ${window})` : mode === "window" ? " (default window)" : ""}`,
        id,
      );
    }),
    ...Object.keys(LONG_STREAM_CONFIGS).map((id) => ({
      ...gateway(`guardgate, ${LONG_STREAM_CHARS / 1000}k characters, ${id.split("-")[1]}`, id),
      body: longBody,
    })),
  ];
  const pools = targets.map((t) => new Pool(`http://127.0.0.1:${t.port}`, { connections: 2 }));
  const samples = targets.map(() => ({ ttft: [] as number[], total: [] as number[], errors: 0, cpu: 0 }));
  for (const [i, target] of targets.entries()) await timeStream(pools[i] as Pool, target);
  for (let r = 0; r < requests; r++) {
    for (const [i, target] of targets.entries()) {
      const into = samples[i] as (typeof samples)[number];
      const before = await deps.cpuOf(target.process);
      const timed = await timeStream(pools[i] as Pool, target).catch(() => ({ ttft: Number.NaN, total: Number.NaN, ok: false }));
      into.cpu += (await deps.cpuOf(target.process)) - before;
      if (!timed.ok) into.errors++;
      else {
        into.ttft.push(timed.ttft);
        into.total.push(timed.total);
      }
    }
  }
  await Promise.all(pools.map((pool) => pool.close()));
  const direct = samples[0] as (typeof samples)[number];
  return targets.slice(1).map((target, index) => {
    const s = samples[index + 1] as (typeof samples)[number];
    return {
      target: target.name,
      ttft_p50_ms: round(p50(s.ttft), 3),
      ttft_max_ms: round(Math.max(...s.ttft), 3),
      total_p50_ms: round(p50(s.total), 1),
      added_ttft_ms: round(p50(s.ttft) - p50(direct.ttft), 3),
      added_total_ms: round(p50(s.total) - p50(direct.total), 1),
      cpu_us_per_request: round(s.cpu / Math.max(1, s.ttft.length + s.errors), 0),
      errors: s.errors,
    };
  });
}

/** The streaming rows as a markdown table. */
export function streamTable(rows: readonly StreamRow[]): string {
  return [
    `Streams: a ${STREAM_TOKENS}-token chat answer (about 2,000 tokens a second from the upstream), ${requests} requests per target, one at a time; the last two rows, a ${LONG_STREAM_CHARS.toLocaleString("en")}-character answer sent as fast as the socket takes it (their added times are against the ${STREAM_TOKENS}-token answer: compare their CPU per stream).`,
    "",
    "| target | time to first token p50 (ms) | added TTFT (ms) | total p50 (ms) | added total (ms) | CPU per stream (µs) | errors |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.target} | ${r.ttft_p50_ms} | ${r.added_ttft_ms} | ${r.total_p50_ms} | ${r.added_total_ms} | ${r.cpu_us_per_request} | ${r.errors} |`,
    ),
  ].join("\n");
}
