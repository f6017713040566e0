/**
 * `npm run bench:gateway -- --fleet`: throughput of 1, 2 and 3 `guardgate serve` instances sharing
 * one Postgres (records and request logs) and one Redis (limit counters, response cache), with
 * the standard guardrail pack on every request. Each instance gets its share of the connections
 * from its own load generator, as behind a round-robin balancer; the figures are the sums. Writes
 * bench/results/fleet.json and .md.
 *
 * On a machine of few cores the instances, Postgres, Redis, the upstream and the load generators
 * all share them: the table shows where adding instances stops paying there, not how a fleet of
 * machines scales.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { startPostgres } from "../test/support/postgres-server.js";
import { startRedis } from "../test/support/redis-server.js";
import { BENCH_KEY } from "./gateway-servers.js";

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

const prompt = `${"My order arrived damaged and the box was open. ".repeat(20)}What should I do next?`;
const body = JSON.stringify({ model: "gpt-bench", max_tokens: 256, messages: [{ role: "user", content: prompt }] });

interface Row {
  instances: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
}

/** Every instance seals credentials with the same key, as a fleet must. */
const secretKey = randomBytes(32).toString("hex");

function start(children: ChildProcess[], role: string, args: string[]): Promise<number> {
  const child = fork(path.join(here, "gateway-servers.js"), [role, ...args], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: { ...process.env, GUARDGATE_SECRET_KEY: secretKey },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("message", (message) => resolve((message as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

function load(port: number, share: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}/v1/chat/completions`,
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": BENCH_KEY, "x-gateway-config": "pack" },
        body,
        duration: seconds,
        connections: share,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** Runs the fleet benchmark and writes its results. */
export async function runFleetBenchmark(): Promise<void> {
  const children: ChildProcess[] = [];
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  try {
    const storeUrl = await postgres.createDatabase();
    const upstreamPort = await start(children, "upstream", []);
    // The first sets up the empty store; the others start once it has.
    const ports = [await start(children, "fleet-serve", [String(upstreamPort), storeUrl, redis.url])];
    ports.push(
      ...(await Promise.all([1, 2].map(() => start(children, "fleet-serve", [String(upstreamPort), storeUrl, redis.url])))),
    );
    const rows: Row[] = [];
    for (const n of [1, 2, 3]) {
      const used = ports.slice(0, n);
      // Warm-up: routings cached, workers started, connections open.
      await Promise.all(used.map((port) => load(port, 2)));
      const share = Math.max(1, Math.round(connections / n));
      const results = await Promise.all(used.map((port) => load(port, share)));
      rows.push({
        instances: n,
        rps: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
        p50_ms: Math.max(...results.map((r) => r.latency.p50)),
        p99_ms: Math.max(...results.map((r) => r.latency.p99)),
        non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
        errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      });
      process.stdout.write(`${n} instance(s): ${rows.at(-1)!.rps} req/s\n`);
    }
    const machine = { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? "unknown", node: process.version };
    const report = { date: new Date().toISOString(), machine, settings: { seconds, connections }, rows };
    const one = rows[0]!.rps;
    const markdown = [
      "# Fleet benchmark",
      "",
      `${report.date}, ${machine.cpus} CPUs (${machine.model}), Node ${machine.node}. Instances of \`guardgate serve\` over one Postgres and one Redis, the standard pack on every request, ${connections} connections in all for ${seconds} s, shared evenly.`,
      "",
      "| instances | req/s | × one | slowest p50 ms | slowest p99 ms | non-2xx | errors |",
      "|---:|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (r) =>
          `| ${r.instances} | ${r.rps} | ${(r.rps / one).toFixed(2)} | ${r.p50_ms} | ${r.p99_ms} | ${r.non2xx} | ${r.errors} |`,
      ),
      "",
      `Every process (instances, Postgres, Redis, the upstream, the load generators) shares these ${machine.cpus} CPUs, so more instances add little or nothing here once the CPUs are busy; the figures say how much one machine holds, not how a fleet of machines scales.`,
      "",
    ].join("\n");
    const out = path.join(here, "../../bench/results");
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, "fleet.json"), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(path.join(out, "fleet.md"), markdown);
    process.stdout.write(`\n${markdown}`);
  } finally {
    for (const child of children) child.kill();
    await redis.stop();
    await postgres.stop();
  }
}
