/**
 * The pool's worker: builds the check registry once from the plugins the engine loaded from
 * modules (the built-in ones first, by their compiled modules), then runs one phase per task. Compiled to dist/core/pool/worker.js,
 * which is what the pool starts, whether the caller runs from source or from dist.
 */
import { threadId, workerData } from "node:worker_threads";
import { importPlugin } from "../plugin-loader.js";
import { regexEngine, useRegexEngine } from "../regex.js";
import { CheckRegistry } from "../registry.js";
import { runPhase } from "../phase/run-phase.js";
import { loadChecks } from "../warm.js";
import type { PhaseMessage, PhaseReply, WarmMessage, WarmReply, WorkerData, WorkerMessage } from "./protocol.js";
import { cancelRequested, markDone, markRunning, viewTaskMemory, watchCancel, workerWatch } from "./task-memory.js";

const data = workerData as WorkerData;
if (regexEngine() !== data.regexEngine) useRegexEngine(data.regexEngine);

const registry = new CheckRegistry();
// The engine registered these plugins already (a loaded plugin's schemas compiled there, the built-ins'
// in test/builtin-schemas.test.ts): a worker compiles a schema only when it uses it.
for (const { moduleUrl, source } of data.plugins) registry.register(await importPlugin(moduleUrl), source, "on-use");

/** Runs one task, piscina calls it with each message: its phases run side by side. */
export default function handle(message: WorkerMessage): Promise<PhaseReply[] | WarmReply> | null {
  if ("ping" in message) return null;
  if ("warm" in message) return warm(message);
  return Promise.all(message.phases.map(runOne));
}

/** How long a warmed worker waits for the pool's other workers before it answers anyway. */
const BARRIER_MS = 30_000;

/** `Atomics.waitAsync` with a time limit (ES2024; the project's library is ES2023). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      view: Int32Array,
      index: number,
      value: number,
      timeout: number,
    ): { async: false } | { async: true; value: Promise<string> };
  }
).waitAsync;

async function warm(message: WarmMessage): Promise<WarmReply> {
  const report = await loadChecks(registry, message.warm);
  // Holding this worker until every worker has its own warm-up keeps a second one off it.
  const count = new Int32Array(message.barrier);
  Atomics.add(count, 0, 1);
  Atomics.notify(count, 0);
  const deadline = Date.now() + BARRIER_MS;
  for (let seen = Atomics.load(count, 0); seen < message.threads && Date.now() < deadline; seen = Atomics.load(count, 0)) {
    const waiting = waitAsync(count, 0, seen, deadline - Date.now());
    if (waiting.async) await waiting.value;
  }
  return { threadId, report: { ...report, threads: 1 } };
}

async function runOne(message: PhaseMessage): Promise<PhaseReply> {
  const view = viewTaskMemory(message.memory);
  if (cancelRequested(view)) {
    markDone(view);
    return { results: [], transformed: false, cancelled: true };
  }
  markRunning(view, threadId);
  let signal: AbortSignal | undefined;
  if (message.cancellable) {
    const controller = new AbortController();
    watchCancel(view, () => controller.abort());
    signal = controller.signal;
  }
  try {
    const { task } = message;
    const phase = await runPhase(registry, task, signal, workerWatch(view, data.epoch));
    const reply: PhaseReply = { results: phase.results, transformed: phase.transformed };
    // The caller holds the bodies already: only changed ones cross back.
    if (phase.request !== task.request) reply.request = phase.request;
    if (phase.response !== task.response) reply.response = phase.response;
    return reply;
  } finally {
    markDone(view);
  }
}
