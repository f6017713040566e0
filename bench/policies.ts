/**
 * What policies cost: the time a request spends finding the guardrails of the policies holding it
 * (a cached set, and a set prepared anew after a change dropped the cache) for 1, 20 and 100
 * policies of a workspace; and replay's throughput over logged requests in the worker pool.
 * Prints a table and writes bench/results/policies.json and .md.
 *
 * `npm run bench:policies` (REPLAY_LOGS=2000 for a shorter run).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createEngine } from "../index.js";
import { EMPTY_ROUTING } from "../server/routing/build.js";
import { PolicyAttacher, preparePolicyGuardrails } from "../server/policies/attach.js";
import { replay } from "../server/policies/replay.js";
import type { PolicyRecord } from "../server/sources/types.js";
import type { LogEntry } from "../server/store/log-types.js";
import { logEntry } from "../test/support/log-entry.js";

const REPLAY_LOGS = Number(process.env.REPLAY_LOGS ?? 10_000);

function policies(count: number): PolicyRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `p${i}`,
    name: `Policy ${i}`,
    mode: i % 2 ? "monitor" : "enforce",
    // A third scoped by model, a third by key, a third to every request.
    scope: i % 3 === 0 ? { models: ["@openai/*"] } : i % 3 === 1 ? { api_keys: ["k1"] } : {},
    input_guardrails: [{ id: `g${i}`, async: false, checks: [{ id: "default.wordCount", parameters: { maxWords: 10 } }] }],
    output_guardrails: [],
  }));
}

async function main(): Promise<void> {
  const engine = await createEngine({ executor: "inline" });
  const request = { workspaceId: "ws", apiKeyId: "k1", model: "@openai/gpt-4o" };
  const attach: Array<{ policies: number; cached_us: number; prepared_us: number }> = [];
  try {
    for (const count of [1, 20, 100]) {
      const listed = policies(count);
      const attacher = new PolicyAttacher(engine, { forWorkspace: async () => listed });
      for (let i = 0; i < 10_000; i++) await attacher.attach(EMPTY_ROUTING, request);
      const hits = 100_000;
      let started = performance.now();
      for (let i = 0; i < hits; i++) await attacher.attach(EMPTY_ROUTING, request);
      const cached = ((performance.now() - started) * 1000) / hits;
      const misses = count >= 100 ? 200 : 1000;
      started = performance.now();
      for (let i = 0; i < misses; i++) {
        attacher.invalidate();
        await attacher.attach(EMPTY_ROUTING, request);
      }
      const prepared = ((performance.now() - started) * 1000) / misses;
      attach.push({ policies: count, cached_us: Number(cached.toFixed(2)), prepared_us: Number(prepared.toFixed(1)) });
    }
  } finally {
    await engine.close();
  }

  const pool = await createEngine({ executor: "pool" });
  let replayed: { logs: number; seconds: number; logs_per_second: number };
  try {
    const policy = policies(2)[0] as PolicyRecord;
    const logs: LogEntry[] = Array.from({ length: REPLAY_LOGS }, (_, i) => {
      const entry = logEntry(`log-${i}`, new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString());
      entry.record = { request: { messages: [{ role: "user", content: `request number ${i} with a few words in it` }] } };
      return entry;
    });
    const started = performance.now();
    await replay({
      engine: pool,
      subject: { kind: "policy", id: policy.id, name: policy.name, workspace_id: null },
      guardrails: { input: preparePolicyGuardrails(pool.registry, policy, "input"), output: [] },
      logs,
      range: { from: null, to: null, workspace_id: null },
    });
    const seconds = (performance.now() - started) / 1000;
    replayed = { logs: REPLAY_LOGS, seconds: Number(seconds.toFixed(2)), logs_per_second: Math.round(REPLAY_LOGS / seconds) };
  } finally {
    await pool.close();
  }

  const machine = `${os.cpus()[0]?.model ?? "unknown CPU"}, ${os.cpus().length} cores, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`;
  const lines = [
    "| policies in the workspace | cached set, µs per request | set prepared after a change, µs |",
    "| --- | --- | --- |",
    ...attach.map((a) => `| ${a.policies} | ${a.cached_us} | ${a.prepared_us} |`),
    "",
    `Replay in the worker pool: ${replayed.logs} logs in ${replayed.seconds} s (${replayed.logs_per_second} logs/s), one guardrail of one check.`,
    "",
    `Machine: ${machine}. A load above the core count means other work shared the machine: the figures are then noisy.`,
  ];
  console.log(lines.join("\n"));
  // Compiled to dist/bench: the results belong beside the sources, in bench/results.
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../bench/results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "policies.json"), `${JSON.stringify({ machine, attach, replay: replayed }, null, 2)}\n`);
  writeFileSync(path.join(dir, "policies.md"), `# Policies\n\n${lines.join("\n")}\n`);
}

await main();
