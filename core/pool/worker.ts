/**
 * The pool's worker: builds the check registry once from the plugins the engine loaded from
 * modules (the built-in ones first, by their compiled modules), then runs one phase per task. Compiled to dist/core/pool/worker.js,
 * which is what the pool starts, whether the caller runs from source or from dist.
 */
import { threadId, workerData } from "node:worker_threads";
import { importPlugin } from "../plugin-loader.js";
import { regexEngine, useRegexEngine } from "../regex.js";
import { CheckRegistry } from "../registry.js";
import { runPhase } from "../runner.js";
import type { PhaseMessage, PhaseReply, WorkerData, WorkerMessage } from "./protocol.js";
import { cancelRequested, markDone, markRunning, viewTaskMemory, watchCancel, workerWatch } from "./task-memory.js";

const data = workerData as WorkerData;
if (regexEngine() !== data.regexEngine) useRegexEngine(data.regexEngine);

const registry = new CheckRegistry();
for (const { moduleUrl, source } of data.plugins) registry.register(await importPlugin(moduleUrl), source);

/** Runs one task, piscina calls it with each message: its phases run side by side. */
export default function handle(message: WorkerMessage): Promise<PhaseReply[]> | null {
  if ("ping" in message) return null;
  return Promise.all(message.phases.map(runOne));
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
