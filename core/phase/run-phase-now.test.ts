import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createEngine, type Evaluation } from "../engine.js";
import { definePlugin, type CheckContext, type CheckOutcome } from "../plugin-api.js";
import { CheckRegistry } from "../registry.js";
import type { CheckKind, Guardrail, GuardrailResult } from "../types.js";
import { runPhase } from "./run-phase.js";
import { runPhaseNow } from "./run-phase-now.js";
import type { PhaseResult, PhaseTask } from "./task.js";

/** What a generated check does; `later` answers through a promise, `thenable` through a non-native one. */
type Answer = "pass" | "fail" | "throw" | "invalid" | "redact" | "append" | "echo";
type Timing = "now" | "later" | "thenable" | "reject";

const ANSWERS: Answer[] = ["pass", "fail", "throw", "invalid", "redact", "append", "echo"];
const TIMINGS: Timing[] = ["now", "later", "thenable", "reject"];
const TRANSFORMS: Answer[] = ["redact", "append"];

/** What every generated check's outcome says of the text it read, so a check that read the wrong content shows. */
function outcome(answer: Answer, context: CheckContext): CheckOutcome {
  const seen = { length: context.text.length, head: context.text.slice(0, 24), tail: context.text.slice(-8) };
  switch (answer) {
    case "pass":
      return { verdict: true, data: seen };
    case "fail":
      return { verdict: false, data: { ...seen, why: "failed on purpose" }, log: "failed" };
    case "throw":
      throw new RangeError(`threw on ${seen.length} characters`);
    case "invalid":
      return { verdict: "yes" } as unknown as CheckOutcome;
    case "redact":
      return { verdict: true, transformedText: context.text.replace(/secret-\w+/g, "[REDACTED]"), data: seen };
    case "append":
      return { verdict: !context.text.endsWith("!!!"), transformedText: `${context.text}!`, data: seen };
    case "echo":
      // A header's secret in the data: redacted from the result on both paths.
      return { verdict: true, data: { ...seen, header: context.headers.authorization ?? null } };
  }
}

function answerAs(timing: Timing, answer: Answer, context: CheckContext): CheckOutcome | Promise<CheckOutcome> {
  switch (timing) {
    case "now":
      return outcome(answer, context);
    case "later":
      return Promise.resolve().then(() => outcome(answer, context));
    case "thenable":
      // A plugin may hand back any thenable; the engine treats it as a promise.
      return {
        then: (resolve: (value: CheckOutcome) => void) => resolve(outcome(answer, context)),
      } as unknown as Promise<CheckOutcome>;
    case "reject":
      return Promise.reject(new Error(`rejected (${answer})`));
  }
}

const KINDS: CheckKind[] = ["deterministic", "network"];

/** One check per answer, timing and kind: `p.<answer>-<timing>-<kind>`. */
function plugin() {
  return definePlugin({
    id: "p",
    class: "custom",
    apiVersion: 1,
    checks: ANSWERS.flatMap((answer) =>
      TIMINGS.flatMap((timing) =>
        KINDS.map((kind) => ({
          id: `${answer}-${timing}-${kind}`,
          description: `${answer}, ${timing}, ${kind}`,
          sides: ["input" as const],
          kind,
          ...(TRANSFORMS.includes(answer) && { transforms: true }),
          parameters: { type: "object" },
          run: (context: CheckContext) => answerAs(timing, answer, context),
        })),
      ),
    ),
  });
}

function registry(): CheckRegistry {
  const made = new CheckRegistry();
  made.register(plugin());
  return made;
}

const checkArb = fc.record({
  answer: fc.constantFrom(...ANSWERS),
  // Mostly synchronous, as the phases the synchronous path is for.
  timing: fc.oneof({ weight: 6, arbitrary: fc.constant<Timing>("now") }, { weight: 1, arbitrary: fc.constantFrom(...TIMINGS) }),
  kind: fc.oneof(
    { weight: 8, arbitrary: fc.constant<CheckKind>("deterministic") },
    { weight: 1, arbitrary: fc.constant<CheckKind>("network") },
  ),
  enabled: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  failOnError: fc.boolean(),
});

const guardrailArb = fc.record({
  async: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  deny: fc.boolean(),
  sequential: fc.boolean(),
  monitor: fc.boolean(),
  feedback: fc.boolean(),
  toolResults: fc.boolean(),
  checks: fc.array(checkArb, { minLength: 0, maxLength: 4 }),
});

const phaseArb = fc.record({
  guardrails: fc.array(guardrailArb, { minLength: 1, maxLength: 4 }),
  text: fc.constantFrom("hello there", "my key is secret-abc and secret-xyz", "!!", "a longer text, secret-q1 inside!!"),
  authorization: fc.option(fc.constant("Bearer sk-test-0123456789abcdef"), { nil: undefined }),
});

type Phase = typeof phaseArb extends fc.Arbitrary<infer T> ? T : never;

function guardrailsOf(phase: Phase): Guardrail[] {
  return phase.guardrails.map((g, i) => ({
    id: `g${i}`,
    side: "input",
    async: g.async,
    deny: g.deny,
    sequential: g.sequential,
    ...(g.monitor && { monitor: true }),
    ...(!g.toolResults && { toolResults: false }),
    ...(g.feedback && {
      onSuccess: { value: 1, weight: 1, metadata: { said: "ok" } },
      onFail: { value: -1, metadata: { said: "no" } },
    }),
    checks: g.checks.map((c) => ({
      id: `p.${c.answer}-${c.timing}-${c.kind}`,
      parameters: {},
      enabled: c.enabled,
      failOnError: c.failOnError,
    })),
  }));
}

function taskOf(phase: Phase, guardrails = guardrailsOf(phase)): PhaseTask {
  return {
    side: "input",
    requestType: "chatComplete",
    request: {
      model: "m",
      messages: [
        { role: "user", content: phase.text },
        { role: "tool", tool_call_id: "c1", content: "tool said secret-tool" },
        { role: "user", content: `${phase.text} again` },
      ],
    },
    guardrails,
    headers: { "content-type": "application/json", ...(phase.authorization && { authorization: phase.authorization }) },
    metadata: { user: "u1" },
  };
}

/** Results without their times: the one thing the two paths may differ in. */
function timeless(results: readonly GuardrailResult[]): unknown {
  return results.map(({ execution_time: _t, created_at: _c, checks, ...rest }) => ({
    ...rest,
    checks: checks.map(({ execution_time: _ct, created_at: _cc, ...check }) => check),
  }));
}

function comparable(result: PhaseResult): unknown {
  return { ...result, results: timeless(result.results) };
}

const TIMES = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectTimes(results: readonly GuardrailResult[]): void {
  for (const result of results) {
    expect(result.created_at).toMatch(TIMES);
    expect(result.execution_time).toBeGreaterThanOrEqual(0);
    for (const check of result.checks) {
      expect(check.created_at).toMatch(TIMES);
      expect(check.execution_time).toBeGreaterThanOrEqual(0);
    }
  }
}

describe("runPhaseNow", () => {
  const checks = registry();

  it("answers a phase of synchronous checks with its result, not a promise", () => {
    const phase: Phase = {
      guardrails: [
        {
          async: false,
          deny: true,
          sequential: false,
          monitor: false,
          feedback: true,
          toolResults: true,
          checks: [
            { answer: "pass", timing: "now", kind: "deterministic", enabled: true, failOnError: false },
            { answer: "fail", timing: "now", kind: "deterministic", enabled: true, failOnError: false },
          ],
        },
      ],
      text: "hello there",
      authorization: undefined,
    };
    const result = runPhaseNow(checks, taskOf(phase));
    expect(result).not.toBeInstanceOf(Promise);
    expect((result as PhaseResult).results[0]).toMatchObject({ verdict: false, deny: true, id: "g0" });
    expect((result as PhaseResult).results[0]?.checks.map((c) => c.verdict)).toEqual([true, false]);
  });

  it("takes the asynchronous loop for a network check, stopOnDeny and an aborted signal", () => {
    const phase = (kind: CheckKind): Phase => ({
      guardrails: [
        {
          async: false,
          deny: true,
          sequential: false,
          monitor: false,
          feedback: false,
          toolResults: true,
          checks: [{ answer: "pass", timing: "now", kind, enabled: true, failOnError: false }],
        },
      ],
      text: "hello there",
      authorization: undefined,
    });
    expect(runPhaseNow(checks, taskOf(phase("network")))).toBeInstanceOf(Promise);
    expect(runPhaseNow(checks, { ...taskOf(phase("deterministic")), stopOnDeny: true })).toBeInstanceOf(Promise);
    expect(runPhaseNow(checks, taskOf(phase("deterministic")), AbortSignal.abort())).toBeInstanceOf(Promise);
  });

  it("gives the asynchronous loop's results, apart from times, for generated phases", async () => {
    await fc.assert(
      fc.asyncProperty(phaseArb, async (phase) => {
        const guardrails = guardrailsOf(phase);
        // Each path twice on the same prepared list: the second run uses the plan made by the first.
        for (let round = 0; round < 2; round++) {
          const expected = await runPhase(checks, taskOf(phase, guardrails));
          const ran = runPhaseNow(checks, taskOf(phase, guardrails));
          const actual = ran instanceof Promise ? await ran : ran;
          expect(comparable(actual)).toEqual(comparable(expected));
          expectTimes(actual.results);
        }
      }),
      { seed: 37, numRuns: 300 },
    );
  });

  it("gives the same evaluation through the engine's inline executor as through the asynchronous loop", async () => {
    const definition = plugin();
    const inline = await createEngine({ plugins: [definition], executor: "inline" });
    const loop = await createEngine({
      plugins: [definition],
      executor: (context) => ({
        name: "loop",
        run: (task, signal) => runPhase(context.registry, task, signal),
        close: () => Promise.resolve(),
      }),
    });
    const evaluation = (e: Evaluation) => ({
      ...e,
      results: timeless(e.results),
      asyncResults: timeless(e.asyncResults),
    });
    try {
      await fc.assert(
        fc.asyncProperty(phaseArb, async (phase) => {
          const guardrails = guardrailsOf(phase);
          const options = (g: Guardrail[]) => {
            const task = taskOf(phase, g);
            return {
              side: "input" as const,
              prepared: g,
              requestType: "chatComplete",
              request: task.request,
              headers: task.headers ?? {},
            };
          };
          const expected = await loop.evaluate(options(guardrails));
          const actual = await inline.evaluate(options(guardrails));
          expect(evaluation(actual)).toEqual(evaluation(expected));
        }),
        { seed: 3737, numRuns: 150 },
      );
    } finally {
      await inline.close();
      await loop.close();
    }
  });
});
