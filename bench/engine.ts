/**
 * `npm run bench:engine`: what the engine costs around the checks. Runs the standard pack's input
 * and output phases (bench/standard-pack.ts) through `engine.evaluate` on the calling thread, on a
 * 1 KB chat request and answer, as the gateway calls it (prepared guardrails, request headers
 * without credentials), and the same checks' `run` functions called directly on the same text.
 * The difference is the engine's own work per phase: locating the text, contexts, time limits,
 * outcome validation, timestamps, redaction, result data. Writes bench/results/engine.json and
 * bench/results/engine.md.
 *
 * Two engines are measured in alternating rounds: the engine as `createEngine` makes it (its
 * inline executor), and one whose executor runs every phase through the asynchronous phase loop
 * (`runPhase`: a promise and an `await` per check and guardrail), the path every phase took before
 * phases of synchronous checks ran without them. Each is measured with phases one after another
 * (each awaited, as a request's phases are) and with `--in-flight` phases started together, whose
 * promises interleave on the microtask queue as concurrent requests' phases do in the gateway.
 * Per phase: wall-clock µs, the process's CPU µs (which a loaded machine disturbs less), and the
 * bytes the JavaScript heap allocated (v8's GCProfiler; bench/process-probe.ts).
 * The median of `--rounds` rounds is the figure, since a shared machine slows single rounds down.
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runPhase } from "../core/internal.js";
import { bodyForText, type CheckContext, createEngine, type Engine, type Guardrail, type Side } from "../index.js";
import { gcStart, gcStop } from "./process-probe.js";
import { sampleText } from "./sample-text.js";
import { STANDARD_PACK } from "./standard-pack.js";

const { values: args } = parseArgs({
  options: {
    phases: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
    "in-flight": { type: "string", default: "16" },
  },
});
const PHASES = Number(args.phases);
const ROUNDS = Number(args.rounds);
const IN_FLIGHT = Number(args["in-flight"]);
if (!Number.isInteger(PHASES) || PHASES < 1) throw new Error(`--phases: "${args.phases}" is not a positive integer`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: "${args.rounds}" is not a positive integer`);
if (!Number.isInteger(IN_FLIGHT) || IN_FLIGHT < 1)
  throw new Error(`--in-flight: "${args["in-flight"]}" is not a positive integer`);

/** The headers an `openai` client sends, as the gateway hands them to a phase: credentials removed. */
const HEADERS: Record<string, string> = {
  accept: "application/json",
  "content-type": "application/json",
  "user-agent": "OpenAI/JS 4.104.0",
  "x-stainless-lang": "js",
  "x-stainless-package-version": "4.104.0",
  "x-stainless-os": "Linux",
  "x-stainless-arch": "x64",
  "x-stainless-runtime": "node",
  "x-stainless-runtime-version": "v20.20.2",
  "x-stainless-retry-count": "0",
  "x-stainless-timeout": "600000",
  "accept-encoding": "gzip,deflate",
  host: "127.0.0.1:8787",
  connection: "keep-alive",
  "content-length": "1094",
};

const round2 = (n: number): number => Math.round(n * 100) / 100;
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** One round's figures per call. */
interface Sample {
  us: number;
  /** The process's CPU time (user and system): on a shared machine it moves less than the wall clock. */
  cpu_us: number;
  bytes: number;
}

/** µs and heap bytes allocated per call of `fn` over `n` calls, `inFlight` at a time, each awaited when it returns a promise. */
async function perCall(n: number, inFlight: number, fn: () => unknown): Promise<Sample> {
  const batch: unknown[] = new Array(inFlight);
  gcStart();
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (inFlight === 1) {
    for (let i = 0; i < n; i++) {
      const value = fn();
      if (value instanceof Promise) await value;
    }
  } else {
    for (let i = 0; i < n; i += inFlight) {
      for (let j = 0; j < inFlight; j++) batch[j] = fn();
      await Promise.all(batch);
    }
  }
  const micros = (performance.now() - started) * 1000;
  const used = process.cpuUsage(cpu);
  const gc = gcStop();
  return { us: micros / n, cpu_us: (used.user + used.system) / n, bytes: gc.allocatedBytes / n };
}

/** The engines measured: as `createEngine` makes it, and with every phase through the asynchronous loop. */
const ENGINES = ["engine", "async loop"] as const;
type EngineName = (typeof ENGINES)[number];
const MODES = [1, IN_FLIGHT] as const;

interface Cell {
  engine: EngineName | "checks alone";
  in_flight: number;
  /** Medians over rounds, per phase. */
  us: number;
  cpu_us: number;
  bytes: number;
  rounds_us: number[];
  rounds_cpu_us: number[];
  rounds_bytes: number[];
}

interface SideRow {
  side: Side;
  checks: string[];
  cells: Cell[];
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const engines: Record<EngineName, Engine> = {
    engine: await createEngine({ executor: "inline" }),
    "async loop": await createEngine({
      executor: (context) => ({
        name: "async loop",
        run: (task, signal) => runPhase(context.registry, task, signal),
        close: () => Promise.resolve(),
      }),
    }),
  };
  const texts = { input: sampleText(1024), output: sampleText(1024, 7) };
  const request = bodyForText("input", "chatComplete", texts.input);
  const response = bodyForText("output", "chatComplete", texts.output);
  const rows: SideRow[] = [];

  for (const side of ["input", "output"] as const) {
    const runs = new Map<string, { name: EngineName | "checks alone"; inFlight: number; fn: () => unknown; samples: Sample[] }>();
    let calls: { id: string; run: () => unknown }[] = [];
    for (const name of ENGINES) {
      const engine = engines[name];
      const prepared: Guardrail[] = (await engine.normalize(STANDARD_PACK))[side];
      const evaluate = () =>
        engine.evaluate({
          side,
          prepared,
          requestType: "chatComplete",
          request,
          ...(side === "output" && { response }),
          metadata: {},
          headers: HEADERS,
          model: "gpt-4o-mini",
          provider: "openai",
        });
      const first = await evaluate();
      if (first.status !== 200) throw new Error(`the ${side} pack did not pass the sample text: status ${first.status}`);
      for (const inFlight of MODES) runs.set(`${name}/${inFlight}`, { name, inFlight, fn: evaluate, samples: [] });

      if (name !== "engine") continue;
      // The checks alone, on the same text: a context as the engine builds one, made once.
      const context = {
        guardrailId: prepared[0]?.id ?? "",
        side,
        requestType: "chatComplete",
        text: texts[side],
        request,
        response: side === "output" ? response : undefined,
        metadata: {},
        headers: HEADERS,
        settings: {},
        toolArguments: true,
        signal: new AbortController().signal,
      } as CheckContext;
      calls = prepared.flatMap((g) =>
        g.checks
          .filter((c) => c.enabled)
          .map((c) => {
            const check = engine.registry.get(c.id);
            return { id: c.id, run: () => check?.definition.run(context, c.parameters) };
          }),
      );
    }
    const checksOnly = () => {
      for (const call of calls) call.run();
    };
    runs.set("checks alone/1", { name: "checks alone", inFlight: 1, fn: checksOnly, samples: [] });

    // Warm-up: let V8 optimise every loop before the timed rounds.
    for (const run of runs.values()) await perCall(Math.min(PHASES, 2_000), run.inFlight, run.fn);
    for (let r = 0; r < ROUNDS; r++) {
      // Alternating in each round, so load from other work falls on every row alike.
      for (const run of runs.values()) run.samples.push(await perCall(PHASES, run.inFlight, run.fn));
      process.stderr.write(
        `${side} round ${r + 1}/${ROUNDS}: ${[...runs.values()].map((x) => `${x.name} ×${x.inFlight} ${round2(x.samples.at(-1)?.cpu_us ?? 0)} µs CPU`).join(", ")}\n`,
      );
    }
    rows.push({
      side,
      checks: calls.map((c) => c.id),
      cells: [...runs.values()].map((x) => ({
        engine: x.name,
        in_flight: x.inFlight,
        us: round2(median(x.samples.map((s) => s.us))),
        cpu_us: round2(median(x.samples.map((s) => s.cpu_us))),
        bytes: Math.round(median(x.samples.map((s) => s.bytes))),
        rounds_us: x.samples.map((s) => round2(s.us)),
        rounds_cpu_us: x.samples.map((s) => round2(s.cpu_us)),
        rounds_bytes: x.samples.map((s) => Math.round(s.bytes)),
      })),
    });
  }
  for (const engine of Object.values(engines)) await engine.close();

  const cpus = os.cpus();
  const report = {
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? "unknown", node: process.version },
    date: new Date().toISOString(),
    load_average: os.loadavg().map((n) => round2(n)),
    phases_per_round: PHASES,
    rounds: ROUNDS,
    in_flight: IN_FLIGHT,
    text_bytes: 1024,
    sides: rows,
  };
  const cell = (row: SideRow, engine: Cell["engine"], inFlight: number) =>
    row.cells.find((c) => c.engine === engine && c.in_flight === inFlight) as Cell;
  const md = [
    "# The engine around the checks",
    "",
    `${report.date}, ${report.machine.cpus} × ${report.machine.model}, Node ${report.machine.node}, load average ${report.load_average.join(" ")}.`,
    `The standard pack on a 1 KB chat request and answer, inline; median of ${ROUNDS} rounds of ${PHASES} phases,`,
    `one at a time and ${IN_FLIGHT} in flight. Wall-clock and CPU µs and bytes allocated per phase; "engine around them" is the phase less the checks alone.`,
    "",
    "| side | checks | engine | in flight | phase (µs) | CPU (µs) | checks alone, CPU (µs) | engine around them, CPU (µs) | bytes per phase | checks alone (bytes) |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.flatMap((r) => {
      const alone = cell(r, "checks alone", 1);
      return ENGINES.flatMap((e) =>
        MODES.map((m) => {
          const c = cell(r, e, m);
          return `| ${r.side} | ${r.checks.length} | ${e} | ${m} | ${c.us} | ${c.cpu_us} | ${alone.cpu_us} | ${round2(c.cpu_us - alone.cpu_us)} | ${c.bytes} | ${alone.bytes} |`;
        }),
      );
    }),
    "",
  ].join("\n");
  const out = path.join(root, "bench", "results");
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, "engine.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(out, "engine.md"), md);
  process.stdout.write(md);
}

await main();
