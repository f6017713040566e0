/**
 * Long work of the quality loop gives the event loop its turns: making a dataset, exporting it
 * (with PII redaction), evaluating on it and replaying over logs all run in slices with a turn of
 * the event loop between them, so /health and other requests never wait for the whole of it. The
 * tests count the turns a ping scheduled with setImmediate gets while the work runs (with a slice
 * of 0 ms, every step ends one), never the time it takes. Real SQLite store, 1,200 logs.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../core/index.js";
import { builtinPlugins } from "../../plugins/builtin.js";
import { logEntry } from "../../test/support/log-entry.js";
import { type TestPlane, tenant, testPlane } from "../../test/support/management.js";
import { OPERATOR } from "../management/actor.js";
import { type ManagementContext, managementContext } from "../management/context.js";
import { Replays } from "../management/replays.js";
import { Datasets } from "./datasets.js";
import { EvalJobs } from "./eval-jobs.js";

const LOGS = 1200;

let plane: TestPlane;
let engine: Engine;
let ctx: ManagementContext;

beforeEach(async () => {
  plane = await testPlane();
  engine = await createEngine({ builtins: builtinPlugins, plugins: [], executor: "inline" });
  ctx = managementContext({ store: plane.store, box: plane.box, registry: engine.registry, workSliceMs: 0 });
});

afterEach(async () => {
  await engine.close();
  await plane.close();
});

/** Turns of the event loop a ping got while `work` ran. */
async function turnsDuring(work: (soFar: () => number) => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const ping = () => {
    if (!running) return;
    turns++;
    setImmediate(ping);
  };
  setImmediate(ping);
  // The ping's first turn comes after the work started, not before.
  const before = turns;
  try {
    await work(() => turns - before);
  } finally {
    running = false;
  }
  return turns - before;
}

async function seed() {
  const t = await tenant(plane.management);
  const logs = Array.from({ length: LOGS }, (_, i) => {
    const entry = logEntry(`log-${String(i).padStart(5, "0")}`, new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), {
      organization_id: t.org.id,
      workspace_id: t.a.id,
    });
    entry.record.request = { messages: [{ role: "user", content: `question ${i}, mail user${i}@example.com` }] };
    entry.record.response = {
      choices: [{ index: 0, message: { role: "assistant", content: `answer ${i}` }, finish_reason: "stop" }],
    };
    return entry;
  });
  await plane.store.logs.insert(logs);
  return t;
}

const words = { id: "words", checks: [{ id: "default.regexMatch", parameters: { rule: "ignore", not: true } }] };

describe("the quality loop's long work shares the event loop", () => {
  it("makes a dataset and exports it, redacted and plain, in slices", async () => {
    const t = await seed();
    const datasets = new Datasets(ctx);
    let id = "";
    const creating = await turnsDuring(async () => {
      id = (await datasets.create(OPERATOR, { name: "all", workspace_id: t.a.id })).id;
    });
    expect(creating).toBeGreaterThanOrEqual(LOGS / 2);
    const drain = async (lines: AsyncIterable<string>) => {
      let count = 0;
      for await (const line of lines) count += line.length > 0 ? 1 : 0;
      return count;
    };
    let redactedLines = 0;
    const redacting = await turnsDuring(async () => {
      redactedLines = await drain(datasets.export(OPERATOR, id, { redact: engine }));
    });
    expect(redactedLines).toBe(LOGS);
    expect(redacting).toBeGreaterThanOrEqual(LOGS / 2);
    expect(await turnsDuring(() => drain(datasets.export(OPERATOR, id)))).toBeGreaterThanOrEqual(LOGS / 2);
  });

  it("evaluates a guardrail on a dataset in slices", async () => {
    const t = await seed();
    const { id } = await new Datasets(plane.management.context).create(OPERATOR, { name: "all", workspace_id: t.a.id });
    const jobs = new EvalJobs(ctx, () => engine);
    const turns = await turnsDuring(async () => {
      await jobs.start(OPERATOR, { workspace_id: t.a.id, dataset_id: id, guardrail: words });
      await jobs.drain();
    });
    // 32 rows are in flight: each turn ends a step of every one of them.
    expect(turns).toBeGreaterThanOrEqual(LOGS / 40);
    const [run] = await plane.store.evalRuns.list({ organizationId: t.org.id });
    expect(run).toMatchObject({ status: "done" });
  });

  it("replays a guardrail over the logs in slices, reading them too", async () => {
    const t = await seed();
    await plane.management.guardrails.create(OPERATOR, t.a.id, { id: "words", name: "words", checks: words.checks });
    const replays = new Replays(ctx);
    let turnsWhileLoading = -1;
    const turns = await turnsDuring(async (soFar) => {
      const run = await replays.run(OPERATOR, t.org.id, { workspace_id: t.a.id, guardrail_id: "words" }, engine, {
        evaluated: () => {
          if (turnsWhileLoading < 0) turnsWhileLoading = soFar();
        },
      });
      expect(run.report.outcomes.passed).toHaveLength(LOGS);
    });
    expect(turnsWhileLoading).toBeGreaterThanOrEqual(LOGS / 2);
    // 16 logs are evaluated at once: each turn ends a step of every one of them.
    expect(turns - turnsWhileLoading).toBeGreaterThanOrEqual(LOGS / 20);
  });
});
