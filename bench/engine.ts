/**
 * `npm run bench:engine`: what the engine costs around the checks. Runs the standard pack's input
 * and output phases (bench/standard-pack.ts) through `engine.evaluate` on the calling thread, on a
 * 1 KB chat request and answer, as the gateway calls it (prepared guardrails, request headers
 * without credentials), and the same checks' `run` functions called directly on the same text.
 * The difference is the engine's own work per phase: locating the text, contexts, time limits,
 * outcome validation, timestamps, redaction, result data. Writes bench/results/engine.json and
 * bench/results/engine.md.
 *
 * Each round runs `--phases` phases one after another (each awaited, as a request's phases are)
 * and reports µs per phase; the median of `--rounds` rounds is the figure, since a shared machine
 * slows single rounds down.
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { bodyForText, type CheckContext, createEngine, type Guardrail, type Side } from "../index.js";
import { sampleText } from "./sample-text.js";
import { STANDARD_PACK } from "./standard-pack.js";

const { values: args } = parseArgs({
  options: {
    phases: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
  },
});
const PHASES = Number(args.phases);
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(PHASES) || PHASES < 1) throw new Error(`--phases: "${args.phases}" is not a positive integer`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: "${args.rounds}" is not a positive integer`);

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

/** µs per call of `fn` over `n` calls, each awaited when it returns a promise. */
async function perCall(n: number, fn: () => unknown): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const value = fn();
    if (value instanceof Promise) await value;
  }
  return ((performance.now() - started) * 1000) / n;
}

interface SideRow {
  side: Side;
  checks: string[];
  /** Median over rounds, µs per phase through `engine.evaluate`. */
  phase_us: number;
  /** Median over rounds, µs per phase of the checks' `run` alone. */
  checks_us: number;
  /** phase_us − checks_us. */
  engine_us: number;
  rounds_phase_us: number[];
  rounds_checks_us: number[];
}

async function main(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
  const engine = await createEngine({ executor: "inline" });
  const pack = await engine.normalize(STANDARD_PACK);
  const texts = { input: sampleText(1024), output: sampleText(1024, 7) };
  const request = bodyForText("input", "chatComplete", texts.input);
  const response = bodyForText("output", "chatComplete", texts.output);
  const rows: SideRow[] = [];

  for (const side of ["input", "output"] as const) {
    const prepared: Guardrail[] = pack[side];
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
    const calls = prepared.flatMap((g) =>
      g.checks.filter((c) => c.enabled).map((c) => ({ id: c.id, parameters: c.parameters, check: engine.registry.get(c.id) })),
    );
    const checksOnly = () => {
      for (const { check, parameters } of calls) check?.definition.run(context, parameters);
    };

    // Warm-up: let V8 optimise both loops before the timed rounds.
    await perCall(Math.min(PHASES, 2_000), evaluate);
    await perCall(Math.min(PHASES, 2_000), checksOnly);
    const phaseRounds: number[] = [];
    const checkRounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      phaseRounds.push(round2(await perCall(PHASES, evaluate)));
      checkRounds.push(round2(await perCall(PHASES, checksOnly)));
      process.stderr.write(`${side} round ${r + 1}/${ROUNDS}: phase ${phaseRounds.at(-1)} µs, checks ${checkRounds.at(-1)} µs\n`);
    }
    const phase_us = round2(median(phaseRounds));
    const checks_us = round2(median(checkRounds));
    rows.push({
      side,
      checks: calls.map((c) => c.id),
      phase_us,
      checks_us,
      engine_us: round2(phase_us - checks_us),
      rounds_phase_us: phaseRounds,
      rounds_checks_us: checkRounds,
    });
  }
  await engine.close();

  const cpus = os.cpus();
  const report = {
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? "unknown", node: process.version },
    date: new Date().toISOString(),
    load_average: os.loadavg().map((n) => round2(n)),
    phases_per_round: PHASES,
    rounds: ROUNDS,
    text_bytes: 1024,
    sides: rows,
  };
  const md = [
    "# The engine around the checks",
    "",
    `${report.date}, ${report.machine.cpus} × ${report.machine.model}, Node ${report.machine.node}, load average ${report.load_average.join(" ")}.`,
    `The standard pack on a 1 KB chat request and answer, inline; median of ${ROUNDS} rounds of ${PHASES} phases.`,
    "",
    "| side | checks | phase (µs) | checks alone (µs) | engine around them (µs) |",
    "|---|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.side} | ${r.checks.length} | ${r.phase_us} | ${r.checks_us} | ${r.engine_us} |`),
    "",
  ].join("\n");
  const out = path.join(root, "bench", "results");
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, "engine.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(out, "engine.md"), md);
  process.stdout.write(md);
}

await main();
