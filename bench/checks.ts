/**
 * `npm run bench:checks`: the latency of every registered deterministic check, inline and through
 * the worker pool, on texts of 1 KB, 10 KB, 100 KB and 1 MB; the pool's round trip and its cost on
 * a phase of five checks, and what that phase costs the event loop and the process, inline and
 * through the pool, at 1 to 16 phases in flight; RE2 native vs re2-wasm vs JS RegExp; the ReDoS
 * pattern; the main thread's event-loop delay while a 200 ms check runs in the pool. Writes
 * bench/results/checks.json and bench/results/checks.md. `--quick` takes fewer samples (a smoke
 * run, not a measurement).
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Bench } from "tinybench";
import { bodyForText } from "../cli/check.js";
import { DEFAULT_IDLE_INLINE_BUDGET_US, DEFAULT_INLINE_BUDGET_US } from "../core/internal.js";
import {
  compileRegex,
  createEngine,
  type Engine,
  firstMatch,
  type Guardrail,
  type PoolExecutor,
  regexEngine,
  type RegexEngineName,
  type RequestType,
  type Side,
  useRegexEngine,
} from "../index.js";
import { type CheckRow, type HandOverRow, type RegexRow, type Report, renderMarkdown } from "./checks-report.js";
import { MODEL_CHECK_STEPS, MODEL_CHECKS, measureModelChecks } from "./model-checks.js";
import { Progress } from "./progress.js";
import { sampleText } from "./sample-text.js";

const { values: args } = parseArgs({ options: { quick: { type: "boolean", default: false } } });
const quick = args.quick === true;

const KB = 1024;
const SIZES = [KB, 10 * KB, 100 * KB, 1024 * KB];
const PHASE_SIZE = KB;
const PHASE_CHECKS = 5;
/** Phases in flight for the sustained rate through the pool. */
const IN_FLIGHT = 64;
/** Phases in flight at which the hand-over to the pool is costed. */
const HAND_OVER_IN_FLIGHT = [1, 2, 4, 16];
/** Checks cheaper than this inline on 1 KB make up the target phase. */
const CHEAP_US = 100;

type Timing = { time: number; warmupTime: number; iterations: number; warmupIterations: number };
/** Fast cases: a time budget with a floor of samples. Large texts: a fixed number of samples. */
const FAST: Timing = quick
  ? { time: 150, warmupTime: 30, iterations: 20, warmupIterations: 5 }
  : { time: 750, warmupTime: 200, iterations: 100, warmupIterations: 20 };
const SLOW: Timing = quick
  ? { time: 0, warmupTime: 0, iterations: 3, warmupIterations: 1 }
  : { time: 1_500, warmupTime: 0, iterations: 10, warmupIterations: 2 };
const timingFor = (bytes: number): Timing => (bytes >= 1024 * KB ? SLOW : FAST);

interface Measured {
  median_us: number;
  p99_us: number;
  ops_per_s: number;
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** Median, p99 and rate of a function, by tinybench (warm-up first, then the timed samples). */
async function measure(fn: () => unknown, timing: Timing): Promise<Measured> {
  const bench = new Bench({ ...timing, throws: true, retainSamples: false });
  bench.add("case", fn as () => Promise<void>);
  await bench.run();
  const result = bench.tasks[0]?.result;
  if (!result || !("latency" in result)) throw new Error(`benchmark did not complete: ${JSON.stringify(result)}`);
  return {
    median_us: round(result.latency.p50 * 1000),
    p99_us: round(result.latency.p99 * 1000),
    ops_per_s: Math.round(1000 / result.period),
  };
}

/** Hands out the given values in turn. */
function inTurn<T>(values: readonly T[]): () => T {
  let i = 0;
  return () => values[i++ % values.length] as T;
}

function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  return dir;
}

/** One guardrail holding the given checks, prepared by the engine as evaluate would. */
async function prepare(engine: Engine, side: Side, checks: Array<{ id: string; parameters: Record<string, unknown> }>) {
  const key = side === "input" ? "input_guardrails" : "output_guardrails";
  const normalized = await engine.normalize({ [key]: [{ id: "bench", checks, deny: true }] });
  return normalized[side] as Guardrail[];
}

interface Case {
  check: string;
  side: Side;
  requestType: RequestType;
  parameters: Record<string, unknown>;
}

function evaluation(c: { side: Side; requestType: RequestType }, text: string, prepared: Guardrail[]) {
  const body = bodyForText(c.side, c.requestType, text);
  return {
    side: c.side,
    requestType: c.requestType,
    prepared,
    request: c.side === "input" ? body : { messages: [{ role: "user", content: "Hello" }] },
    ...(c.side === "output" && { response: body }),
  };
}

async function main(): Promise<void> {
  const root = packageRoot();
  const hostile = path.join(root, "test", "fixtures", "hostile-plugin.js");
  const inline = await createEngine({ executor: "inline", plugins: [hostile] });
  const pooled = await createEngine({ executor: "pool", plugins: [hostile] });
  const pool = pooled.executor as PoolExecutor;

  const registered = inline.checks().filter((c) => c.plugin !== "hostile");
  const cases: Case[] = registered
    .filter((c) => c.kind === "deterministic")
    .map((c) => {
      const definition = inline.registry.get(c.id)?.definition;
      return {
        check: c.id,
        side: c.sides.includes("input") ? "input" : "output",
        requestType: definition?.requestTypes?.[0] ?? "chatComplete",
        parameters: c.examples[0]?.parameters ?? {},
      };
    });
  const skipped = registered
    .filter((c) => c.kind !== "deterministic" && !MODEL_CHECKS.includes(c.id))
    .map((c) => `${c.id} (${c.kind})`);
  // Two texts per size, taken in turn: the native RE2 binding caches the UTF-8 copy of the last
  // string it saw, which one repeated text would turn into an advantage no request gets.
  const texts = new Map(SIZES.map((bytes) => [bytes, [sampleText(bytes, 42), sampleText(bytes, 43)] as const]));
  const regexPatterns = [
    "\\d{3}-\\d{2}-\\d{4}",
    "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}",
    "\\b(?:password|secret|api[_-]?key)\\b",
  ];
  const regexSizes = [KB, 10 * KB, 100 * KB];
  const redosJs = quick ? [16, 20] : [16, 20, 22, 24];
  const engines: Array<RegexEngineName | "js"> = ["re2", "re2-wasm", "js"];

  const steps =
    1 + // round trip
    cases.length * SIZES.length * 2 +
    4 + // phases inline and pool
    2 + // throughput
    2 + // event loop
    engines.length * regexPatterns.length * regexSizes.length +
    redosJs.length +
    4 + // ReDoS on both RE2 builds
    MODEL_CHECK_STEPS +
    1; // writing
  const progress = new Progress(steps);
  const load = os.loadavg().map((n) => n.toFixed(2));

  // Every worker started and warm before anything is timed.
  const warm = evaluation(
    { side: "input", requestType: "chatComplete" },
    "Warm up.",
    await prepare(pooled, "input", [{ id: "default.wordCount", parameters: {} }]),
  );
  for (let i = 0; i < 50; i++) await Promise.all(Array.from({ length: pool.size * 2 }, () => pooled.evaluate(warm)));

  const results: CheckRow[] = [];
  for (const c of cases) {
    const prepared = await prepare(inline, c.side, [{ id: c.check, parameters: c.parameters }]);
    for (const bytes of SIZES) {
      const options = inTurn((texts.get(bytes) ?? []).map((text) => evaluation(c, text, prepared)));
      for (const [executor, engine] of [
        ["inline", inline],
        ["pool", pooled],
      ] as const) {
        progress.step(`${c.check} ${bytes / KB} KB ${executor}`);
        const m = await measure(() => engine.evaluate(options()), timingFor(bytes));
        results.push({ check: c.check, size_bytes: bytes, executor, ...m });
      }
    }
  }

  // The target phase: five checks on 1 KB, made of the checks that cost less than CHEAP_US there
  // (the cheapest first, repeated when fewer than five are that cheap), so that the comparison
  // shows the pool's overhead rather than one expensive check. A phase of every deterministic
  // check follows, for the cost of a realistic mix.
  const byCost = results
    .filter((r) => r.executor === "inline" && r.size_bytes === PHASE_SIZE)
    .sort((a, b) => a.median_us - b.median_us)
    .map((r) => ({ median: r.median_us, c: cases.find((c) => c.check === r.check) as Case }))
    .filter(({ c }) => c.side === "input");
  const cheap = byCost.filter(({ median }) => median < CHEAP_US).map(({ c }) => c);
  const pool5 = cheap.length ? cheap : byCost.slice(0, 1).map(({ c }) => c);
  const phaseCases = Array.from({ length: PHASE_CHECKS }, (_, i) => pool5[i % pool5.length] as Case);
  const short = (c: Case) => c.check.replace(/^default\./, "");
  const phaseName = `phase of ${PHASE_CHECKS} checks (${phaseCases.map(short).join(", ")})`;
  const phasePrepared = await prepare(
    inline,
    "input",
    phaseCases.map((c) => ({ id: c.check, parameters: c.parameters })),
  );
  const phaseOptions = inTurn(
    (texts.get(PHASE_SIZE) ?? []).map((text) => evaluation({ side: "input", requestType: "chatComplete" }, text, phasePrepared)),
  );
  const everyCase = byCost.map(({ c }) => c);
  const everyName = `phase of every check (${everyCase.length})`;
  const everyPrepared = await prepare(
    inline,
    "input",
    everyCase.map((c) => ({ id: c.check, parameters: c.parameters })),
  );
  const everyOptions = inTurn(
    (texts.get(PHASE_SIZE) ?? []).map((text) => evaluation({ side: "input", requestType: "chatComplete" }, text, everyPrepared)),
  );
  const phase: Record<"inline" | "pool", Measured> = {} as never;
  for (const [executor, engine] of [
    ["inline", inline],
    ["pool", pooled],
  ] as const) {
    progress.step(`${phaseName} ${executor}`);
    phase[executor] = await measure(() => engine.evaluate(phaseOptions()), FAST);
    results.push({ check: phaseName, size_bytes: PHASE_SIZE, executor, ...phase[executor] });
  }
  for (const [executor, engine] of [
    ["inline", inline],
    ["pool", pooled],
  ] as const) {
    progress.step(`${everyName} ${executor}`);
    results.push({
      check: everyName,
      size_bytes: PHASE_SIZE,
      executor,
      ...(await measure(() => engine.evaluate(everyOptions()), FAST)),
    });
  }

  // The pool's own cost, on warm workers: a round trip with no work.
  progress.step("pool round trip");
  const roundTrip = await measure(() => pool.ping(), FAST);

  // Sustained rate: as many phases in flight as a busy server's concurrent requests send, so
  // phases wait for workers and share tasks as they would there.
  progress.step("pool throughput");
  const sustained = async (engine: Engine, inFlight: number, ms: number): Promise<number> => {
    let done = 0;
    const until = performance.now() + ms;
    const lane = async () => {
      while (performance.now() < until) {
        await engine.evaluate(phaseOptions());
        done++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: inFlight }, lane));
    return Math.round(done / ((performance.now() - started) / 1000));
  };
  await sustained(pooled, IN_FLIGHT, 300);
  const before = pool.stats();
  const poolRate = await sustained(pooled, IN_FLIGHT, quick ? 1_000 : 3_000);
  const after = pool.stats();
  const phasesPerTask = round((after.completed - before.completed) / Math.max(1, after.tasks - before.tasks));
  progress.step("inline throughput");
  const inlineRate = await sustained(inline, 1, quick ? 1_000 : 3_000);

  // What a phase costs the event loop and the process, inline and through the pool, with few
  // phases in flight (as a gateway sends them) up to many (where they share tasks).
  const handOver: HandOverRow[] = [];
  const costPerPhase = async (engine: Engine, inFlight: number, ms: number) => {
    await sustained(engine, inFlight, 200);
    const loop = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const rate = await sustained(engine, inFlight, ms);
    const phases = Math.max(1, (rate * (performance.now() - started)) / 1000);
    const { user, system } = process.cpuUsage(cpu);
    return {
      loop: round((performance.eventLoopUtilization(loop).active * 1000) / phases),
      cpu: round((user + system) / phases),
    };
  };
  for (const inFlight of HAND_OVER_IN_FLIGHT) {
    progress.step(`hand-over, ${inFlight} in flight`);
    const inlineCost = await costPerPhase(inline, inFlight, quick ? 300 : 1_500);
    const poolCost = await costPerPhase(pooled, inFlight, quick ? 300 : 1_500);
    handOver.push({
      in_flight: inFlight,
      inline_loop_us: inlineCost.loop,
      inline_cpu_us: inlineCost.cpu,
      pool_loop_us: poolCost.loop,
      pool_cpu_us: poolCost.cpu,
    });
  }

  // Event-loop delay while a 200 ms CPU-bound check runs, in the pool and inline.
  const loopDelay = async (engine: Engine, runs: number): Promise<number> => {
    const spin = await prepare(engine, "input", [{ id: "hostile.spin", parameters: { ms: 200 } }]);
    const options = evaluation({ side: "input", requestType: "chatComplete" }, "Spin.", spin);
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    for (let i = 0; i < runs; i++) {
      await engine.evaluate(options);
      // Let the loop turn between runs, as a server's would: the monitor samples on loop turns.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    histogram.disable();
    return round(histogram.percentile(99) / 1e6);
  };
  progress.step("event-loop delay, pool");
  const loopPool = await loopDelay(pooled, quick ? 3 : 10);
  progress.step("event-loop delay, inline");
  const loopInline = await loopDelay(inline, quick ? 2 : 5);

  // Regular expressions: the two RE2 builds through core/regex (cached compile, as regexMatch
  // uses them) and JS RegExp, on the same patterns and texts.
  const initialEngine = regexEngine();
  const regex: RegexRow[] = [];
  for (const engineName of engines) {
    for (const pattern of regexPatterns) {
      for (const bytes of regexSizes) {
        progress.step(`regex ${engineName} /${pattern}/ ${bytes / KB} KB`);
        const text = inTurn(texts.get(bytes) ?? []);
        let run: () => unknown;
        if (engineName === "js") {
          const compiled = new RegExp(pattern);
          run = () => compiled.exec(text());
        } else {
          useRegexEngine(engineName);
          const compiled = compileRegex(pattern);
          run = () => firstMatch(compiled, text());
        }
        const m = await measure(run, FAST);
        regex.push({ engine: engineName, pattern, size_bytes: bytes, median_us: m.median_us });
      }
    }
  }
  // ReDoS: `^(a+)+$` on a's followed by a b. JS RegExp backtracks exponentially, so it only gets
  // short inputs; RE2 gets the same short input and 50,000 a's.
  const redos = "^(a+)+$";
  const attack = (n: number) => `${"a".repeat(n)}b`;
  for (const n of redosJs) {
    progress.step(`ReDoS js ${n + 1} chars`);
    const compiled = new RegExp(redos);
    const m = await measure(() => compiled.exec(attack(n)), { time: 0, warmupTime: 0, iterations: 3, warmupIterations: 1 });
    regex.push({ engine: "js", pattern: redos, size_bytes: n + 1, median_us: m.median_us });
  }
  for (const engineName of ["re2", "re2-wasm"] as const) {
    useRegexEngine(engineName);
    const compiled = compileRegex(redos);
    for (const n of [redosJs.at(-1) as number, 50_000]) {
      progress.step(`ReDoS ${engineName} ${n + 1} chars`);
      const input = attack(n);
      const m = await measure(() => firstMatch(compiled, input), FAST);
      regex.push({ engine: engineName, pattern: redos, size_bytes: n + 1, median_us: m.median_us });
    }
  }
  useRegexEngine(initialEngine);

  // The model checks last: their rows join the tables, not the phases built from the cheap checks above.
  results.push(
    ...(await measureModelChecks(
      texts,
      (fn, bytes) => measure(fn, timingFor(bytes)),
      (label) => progress.step(label),
      (text, prepared) => evaluation({ side: "input", requestType: "chatComplete" }, text, prepared),
    )),
  );

  progress.step("writing results");
  const cpus = os.cpus();
  const report: Report = {
    machine: { cpus: cpus.length, model: cpus[0]?.model.trim() ?? "unknown", node: process.version },
    date: new Date().toISOString(),
    pool: {
      round_trip_us: roundTrip.median_us,
      round_trip_p99_us: roundTrip.p99_us,
      size: pool.size,
      phase_checks: phaseCases.map((c) => c.check),
      phase_inline_median_us: phase.inline.median_us,
      phase_pool_median_us: phase.pool.median_us,
      phase_overhead_us: round(phase.pool.median_us - phase.inline.median_us),
      phases_per_s: poolRate,
      in_flight: IN_FLIGHT,
      phases_per_task: phasesPerTask,
      inline_phases_per_s: inlineRate,
      event_loop_p99_ms: loopPool,
      event_loop_p99_ms_inline: loopInline,
      inline_budget_us: DEFAULT_INLINE_BUDGET_US,
      idle_inline_budget_us: DEFAULT_IDLE_INLINE_BUDGET_US,
      hand_over: handOver,
    },
    results,
    regex,
  };
  const notes = { quick, load, skipped };
  const out = path.join(root, "bench", "results");
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, "checks.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(out, "checks.md"), renderMarkdown(report, notes));
  await Promise.all([inline.close(), pooled.close()]);
  progress.finish(`wrote ${path.relative(process.cwd(), path.join(out, "checks.json"))} and checks.md`);
}

main().catch((error: unknown) => {
  process.stderr.write(`\nbench:checks failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
