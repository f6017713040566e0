/**
 * What the record stage costs per request, outside the load of a whole gateway: builds 10,000
 * request-log records of a request with the standard pack (the record one real request through a
 * managed gateway wrote: its attempts, both guardrails' results, usage and cost, both bodies) and
 * writes them through the store sink `guardgate serve` uses (redaction, the batch writer, the
 * SQLite writer thread). CPU time is read per thread from /proc: the event loop's, and the whole
 * process's (the writer thread and the rest). Prints a table and writes bench/results/record.json
 * and .md.
 *
 * `npm run bench:record` (RECORDS=2000 for a shorter run, ROUNDS for more rounds).
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { GuardrailResult } from "../core/index.js";
import { requestId } from "../server/logs/log-id.js";
import { redactedJson } from "../server/logs/redact.js";
import { buildRecord, type RecordFacts, type RequestLogRecord } from "../server/logs/record.js";
import type { AttemptRecord } from "../server/logs/view.js";
import { chat, startManaged } from "../test/support/managed.js";
import { STANDARD_PACK } from "./standard-pack.js";

const RECORDS = Number(process.env.RECORDS ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** Records handed to the sink at once, as many requests finishing together would. */
const CONCURRENT = 256;
const here = path.dirname(fileURLToPath(import.meta.url));

/** Ticks of CPU per second in /proc (Linux's USER_HZ). */
const TICKS = 100;

/** CPU µs the main thread has used so far, from /proc (Node 20 has no per-thread CPU call). */
function mainThreadMicros(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
  // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS;
}

function processMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const gw = await startManaged({ logFlushMs: 50 });
  try {
    // One real request with the pack (a support-chat turn of about 1 KB), for a record of the real shape and size.
    const requestBody = chat(
      "@mock/bench-model",
      `${"My order arrived damaged and the box was open. ".repeat(20)}What should I do next?`,
    );
    const answer = await gw.call("POST", "/v1/chat/completions", {
      key: gw.keys.api_key,
      body: requestBody,
      headers: { "x-gateway-config": JSON.stringify({ provider: "@mock", ...STANDARD_PACK }) },
    });
    if (answer.status !== 200) throw new Error(`the sample request answered ${answer.status}: ${answer.text}`);
    await gw.managed.sink.flush();
    const id = answer.headers["x-gateway-request-id"] as string;
    const view = await gw.call("GET", `/admin/v1/logs/${id}`, { key: gw.keys.admin_key });
    const sample = view.body as {
      hook_results: { before_request_hooks: GuardrailResult[]; after_request_hooks: GuardrailResult[] };
      attempts: AttemptRecord[];
      model: string;
    };
    // The answer the client got, less the hook_results the gateway added: the body the log keeps.
    const { hook_results: _hooks, ...responseBody } = answer.body as Record<string, unknown>;
    const facts = (): RecordFacts => ({
      id: requestId(),
      started: performance.now() - 1.5,
      origin: {
        workspaceId: gw.keys.workspace_id,
        apiKeyId: "key-bench",
        route: "/v1/chat/completions",
        requestType: "chatComplete",
        stream: false,
        inlineGuardrails: ["input-pack", "output-pack"],
      },
      status: 200,
      // The final attempt holds the same result objects as the record, as in the gateway.
      attempts: sample.attempts.map((a, i, all) =>
        i === all.length - 1 && a.hook_results ? { ...a, hook_results: sample.hook_results } : { ...a },
      ),
      hookResults: sample.hook_results,
      provider: "@mock",
      model: sample.model,
      settled: { usage: { input_tokens: 230, output_tokens: 240 }, cost: 0.0012 },
      bodies: { request: requestBody, response: responseBody, maxBytes: 64 * 1024 },
    });
    const sink = gw.managed.sink;
    const workspace = gw.keys.workspace_id;
    /** As the gateway does: bodies only for a workspace that keeps them (by default it does not). */
    const build = async (): Promise<RequestLogRecord> => {
      const made = facts();
      if (!(await sink.keepsBodies(workspace))) delete made.bodies;
      return buildRecord(made);
    };

    const rows: Array<{ step: string; event_loop_us: number; process_us: number }> = [];
    const measure = async (step: string, run: () => Promise<void>) => {
      const loop: number[] = [];
      const all: number[] = [];
      await run(); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        const [mainBefore, processBefore] = [mainThreadMicros(), processMicros()];
        await run();
        loop.push((mainThreadMicros() - mainBefore) / RECORDS);
        all.push((processMicros() - processBefore) / RECORDS);
      }
      rows.push({ step, event_loop_us: Number(median(loop).toFixed(1)), process_us: Number(median(all).toFixed(1)) });
    };

    await measure("build the record", async () => {
      for (let i = 0; i < RECORDS; i++) await build();
    });
    // The record as the sink serialises it for a workspace that keeps no bodies.
    const { request: _request, response: _response, ...kept } = await build();
    await measure("serialise and redact the record (bodies not kept)", async () => {
      for (let i = 0; i < RECORDS; i++) redactedJson(kept, ["sk-bench-0123456789"]);
    });
    await measure("build and write (sink, redaction, batch, writer thread)", async () => {
      for (let i = 0; i < RECORDS; i += CONCURRENT) {
        const batch: Array<Promise<void>> = [];
        for (let j = i; j < Math.min(RECORDS, i + CONCURRENT); j++) batch.push(build().then((record) => sink.write(record)));
        await Promise.all(batch);
      }
      await sink.flush();
    });

    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, loadavg_1m: os.loadavg()[0] },
      settings: { records: RECORDS, rounds: ROUNDS, concurrent: CONCURRENT },
      record_bytes: Buffer.byteLength(JSON.stringify(buildRecord(facts()))),
      rows,
    };
    const markdown = [
      "# The record stage: CPU per record",
      "",
      `${report.date}, ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}, load average ${report.machine.loadavg_1m?.toFixed(2)} at the end.`,
      `${RECORDS} records of a request with the standard pack (${report.record_bytes} bytes of JSON each, bodies included) per round, median of ${ROUNDS} rounds; CPU read per thread from /proc (10 ms ticks).`,
      "",
      "| step | event loop (µs per record) | whole process (µs per record) |",
      "|---|---:|---:|",
      ...rows.map((r) => `| ${r.step} | ${r.event_loop_us} | ${r.process_us} |`),
      "",
    ].join("\n");
    const out = path.join(here, "../../bench/results");
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, "record.json"), `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(path.join(out, "record.md"), markdown);
    process.stdout.write(`\n${markdown}`);
  } finally {
    await gw.close();
  }
}

await main();
