import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../core/index.js";
import { GatewayMetrics } from "./gateway-metrics.js";

const HOSTILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures/hostile-plugin.js");

describe("guardgate_pool_worker_restarts_total", () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ executor: "pool", pool: { size: 1 }, plugins: [HOSTILE] });
  });
  afterAll(() => engine?.close());

  const cutOff = () =>
    engine.evaluate({
      side: "input",
      requestType: "chatComplete",
      request: { messages: [{ role: "user", content: "hi" }] },
      guardrails: [{ id: "g", checks: [{ id: "hostile.forever", parameters: { timeout: 50 } }] }],
    });

  it("is a counter of replaced workers by reason, which grows with each cut-off and never falls back", async () => {
    const metrics = new GatewayMetrics({ executor: () => engine.executor });
    const scrape = () => metrics.registry.metrics();
    const first = await scrape();
    expect(first).toContain("# TYPE guardgate_pool_worker_restarts_total counter");
    expect(first).toMatch(/guardgate_pool_worker_restarts_total\{reason="time_limit"\} 0\n/);
    expect(first).toMatch(/guardgate_pool_worker_restarts_total\{reason="crash"\} 0\n/);
    expect(first).not.toMatch(/^guardgate_pool_worker_restarts /m);

    await cutOff();
    expect(await scrape()).toMatch(/guardgate_pool_worker_restarts_total\{reason="time_limit"\} 1\n/);
    // A scrape with nothing new keeps the count.
    expect(await scrape()).toMatch(/guardgate_pool_worker_restarts_total\{reason="time_limit"\} 1\n/);
    await cutOff();
    expect(await scrape()).toMatch(/guardgate_pool_worker_restarts_total\{reason="time_limit"\} 2\n/);
  });

  it("carries prom-client's default process and Node.js metrics", async () => {
    const text = await new GatewayMetrics().registry.metrics();
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });
});
