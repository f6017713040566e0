/**
 * The catastrophe guard: every deterministic check of the default plugin, with its first example's
 * parameters, on about 1 MB of adversarial text, through the engine. A check whose cost grows with
 * the square of the text takes minutes here; a linear one takes well under a second or two. The
 * bound is deliberately generous (the machine is shared): this guards against catastrophe, it does
 * not measure speed (the benchmarks do).
 */
import { describe, expect, it } from "vitest";
import { type CheckInfo, createEngine } from "../index.js";
import { adversarialTexts } from "./adversarial-texts.js";

const BOUND_MS = 5_000;

const engine = await createEngine();
const checks: CheckInfo[] = engine.checks().filter((c) => c.plugin === "default" && c.kind === "deterministic");
const texts = Object.entries(adversarialTexts());

function bodies(side: "input" | "output", text: string) {
  const request = { model: "m", messages: [{ role: "user", content: side === "input" ? text : "hi" }] };
  const response = { choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
  return side === "input" ? { request } : { request, response };
}

describe.each(checks.map((check) => [check.id, check] as const))("%s on 1 MB of adversarial text", (_id, check) => {
  it.each(texts)(`%s finishes within ${BOUND_MS / 1000} s`, async (_name, text) => {
    const side = check.sides[0] as "input" | "output";
    const started = performance.now();
    const evaluation = await engine.evaluate({
      side,
      requestType: "chatComplete",
      ...bodies(side, text),
      guardrails: [{ checks: [{ id: check.id, parameters: check.examples[0]?.parameters ?? {} }] }],
    });
    const elapsed = performance.now() - started;
    const result = evaluation.results[0]?.checks[0];
    expect(result?.error).toBeUndefined();
    expect(elapsed).toBeLessThan(BOUND_MS);
  });
});

it("covers every deterministic check of the default plugin", () => {
  expect(checks.length).toBeGreaterThanOrEqual(17);
  expect(texts.every(([, text]) => text.length >= 1 << 19)).toBe(true);
});
