import { describe, expect, it } from "vitest";
import { definePlugin } from "../plugin-api.js";
import { CheckRegistry } from "../registry.js";
import { erroredPhase } from "./results.js";
import { runPhase } from "./run-phase.js";
import { type CheckWatch, checkSlots, type PhaseTask } from "./task.js";
import type { Guardrail } from "../types.js";

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Busy on purpose: the check must hold the thread.
  }
}

const registry = new CheckRegistry();
registry.register(
  definePlugin({
    id: "t",
    class: "custom",
    apiVersion: 1,
    checks: [
      {
        id: "spin",
        description: "busy for ms",
        sides: ["input"],
        parameters: { type: "object", properties: { ms: { type: "number" } } },
        run: (_c, p: { ms: number }) => {
          spin(p.ms);
          return { verdict: true };
        },
      },
      {
        id: "fail",
        description: "fails",
        sides: ["input"],
        parameters: { type: "object", properties: { ms: { type: "number" } } },
        run: () => ({ verdict: false }),
      },
      {
        id: "later",
        description: "answers after ms",
        sides: ["input"],
        parameters: { type: "object", properties: { ms: { type: "number" } } },
        run: (_c, p: { ms: number }) => new Promise((resolve) => setTimeout(() => resolve({ verdict: true }), p.ms)),
      },
    ],
  }),
);

function guardrail(
  id: string,
  checks: Array<{ id: string; ms: number; timeout?: number; enabled?: boolean; failOnError?: boolean }>,
): Guardrail {
  return {
    id,
    side: "input",
    async: false,
    deny: true,
    sequential: false,
    checks: checks.map((c) => ({
      id: c.id,
      parameters: { ms: c.ms },
      enabled: c.enabled ?? true,
      failOnError: c.failOnError ?? false,
      ...(c.timeout !== undefined && { timeout: c.timeout }),
    })),
  };
}

function task(guardrails: Guardrail[]): PhaseTask {
  return { side: "input", requestType: "chatComplete", request: { messages: [{ role: "user", content: "hi" }] }, guardrails };
}

describe("runner time limits", () => {
  it("reports each check's own time, not the time of the checks it ran beside", async () => {
    const result = await runPhase(
      registry,
      task([
        guardrail("g", [
          { id: "t.spin", ms: 20 },
          { id: "t.spin", ms: 20 },
        ]),
      ]),
    );
    const [first, second] = result.results[0]?.checks ?? [];
    expect(first?.execution_time).toBeGreaterThanOrEqual(20);
    expect(first?.execution_time).toBeLessThan(39);
    expect(second?.execution_time).toBeGreaterThanOrEqual(20);
  });

  it("times out a check that blocked past its limit, though it returned", async () => {
    const result = await runPhase(registry, task([guardrail("g", [{ id: "t.spin", ms: 40, timeout: 10 }])]));
    expect(result.results[0]?.checks[0]?.error).toEqual({
      name: "TimeoutError",
      message: "check t.spin exceeded its time limit of 10 ms",
    });
  });

  it("times out a check that answers too late", async () => {
    const result = await runPhase(registry, task([guardrail("g", [{ id: "t.later", ms: 500, timeout: 20 }])]));
    expect(result.results[0]?.checks[0]?.error).toMatchObject({ name: "TimeoutError" });
  });

  it("tells the watch when each check starts and ends, by slot", async () => {
    const events: string[] = [];
    const watch: CheckWatch = {
      started: (slot, limit) => events.push(`start ${slot} ${limit}`),
      finished: (slot) => events.push(`end ${slot}`),
    };
    const guardrails = [
      guardrail("a", [
        { id: "t.spin", ms: 0, enabled: false },
        { id: "t.later", ms: 5, timeout: 1_000 },
      ]),
      guardrail("b", [{ id: "t.spin", ms: 0, timeout: 300 }]),
    ];
    expect(checkSlots(guardrails)).toEqual([0, 2]);
    await runPhase(registry, task(guardrails), undefined, watch);
    expect(events.sort()).toEqual(["end 1", "end 2", "start 1 1000", "start 2 300"]);
  });
});

describe("stopOnDeny", () => {
  const guardrails = () => [
    guardrail("denier", [{ id: "t.fail", ms: 0 }]),
    guardrail("slow", [{ id: "t.later", ms: 5_000 }]),
    { ...guardrail("logged", [{ id: "t.later", ms: 30 }]), async: true },
  ];

  it("cancels the other synchronous guardrails' outstanding checks once one denies; async guardrails run on", async () => {
    const started = performance.now();
    const result = await runPhase(registry, { ...task(guardrails()), stopOnDeny: true });
    expect(performance.now() - started).toBeLessThan(4_000);
    const [denier, slow, logged] = result.results;
    expect(denier).toMatchObject({ verdict: false, deny: true });
    expect(slow?.checks[0]?.error).toEqual({
      name: "AbortError",
      message: "check t.later was cancelled: guardrail denier already denied the request",
    });
    expect(logged?.checks[0]).toMatchObject({ verdict: true });
    expect(logged?.checks[0]?.error).toBeUndefined();
  });

  it("waits for every check without it", async () => {
    const result = await runPhase(
      registry,
      task([guardrail("denier", [{ id: "t.fail", ms: 0 }]), guardrail("slow", [{ id: "t.later", ms: 30 }])]),
    );
    expect(result.results[1]?.checks[0]).toMatchObject({ verdict: true });
  });

  it("passes a cancellation's reason in words to the results", async () => {
    const controller = new AbortController();
    controller.abort("client went away");
    const result = await runPhase(registry, task([guardrail("g", [{ id: "t.later", ms: 10 }])]), controller.signal);
    expect(result.results[0]?.checks[0]?.error).toEqual({
      name: "AbortError",
      message: "check t.later was cancelled: client went away",
    });
  });
});

describe("erroredPhase", () => {
  it("errors every enabled check and applies the fail_on_error rule", () => {
    const input = task([
      guardrail("soft", [{ id: "t.spin", ms: 0 }]),
      guardrail("hard", [
        { id: "t.spin", ms: 0, failOnError: true },
        { id: "t.spin", ms: 0, enabled: false },
      ]),
    ]);
    const result = erroredPhase(input, (config, slot) => ({
      error: { name: "WorkerError", message: `${config.id} at ${slot}` },
      execution_time: 1,
    }));
    expect(result.request).toBe(input.request);
    expect(result.transformed).toBe(false);
    expect(result.results.map((r) => [r.id, r.verdict, r.deny, r.checks.length])).toEqual([
      ["soft", true, false, 1],
      ["hard", false, true, 1],
    ]);
    expect(result.results[1]?.checks[0]).toMatchObject({
      verdict: false,
      error: { message: "t.spin at 1" },
      fail_on_error: true,
    });
  });
});
