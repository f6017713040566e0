/**
 * The catastrophe guard: every deterministic check of the default plugin, with its first example's
 * parameters, on about 1 MB of adversarial text, through the engine. A check whose cost grows with
 * the square of the text takes minutes here; a linear one takes well under a second or two. The
 * cost on 1 MB is also compared with the cost on 256 KB: four times the text may cost about four
 * times as much, a quadratic check costs sixteen. The bounds are deliberately generous: this guards
 * against catastrophe, it does not measure speed (the benchmarks do). Costs are processor time, which
 * a busy machine does not stretch as it does the wall clock, and the check's own time limit (a wall
 * clock) is set far out of the way for the same reason.
 */
import { describe, expect, it } from "vitest";
import { type CheckInfo, createEngine } from "../index.js";
import { adversarialTexts, MEGABYTE } from "./adversarial-texts.js";
import { cpuMs } from "./support/cpu-time.js";

const BOUND_MS = 5_000;
/** Cost of 4n over cost of n: about 4 when linear, 16 when quadratic. */
const RATIO_BOUND = 10;
/**
 * Below this the ratio measures noise and memory effects (a megabyte string leaves the caches a
 * quarter of one fits in), not growth; a quadratic check costs seconds here.
 */
const RATIO_FLOOR_MS = 150;

const engine = await createEngine();
type CheckResult = Awaited<ReturnType<typeof engine.evaluate>>["results"][number]["checks"][number];
const checks: CheckInfo[] = engine.checks().filter((c) => c.plugin === "default" && c.kind === "deterministic");
const texts = Object.entries(adversarialTexts());
const quarters = adversarialTexts(MEGABYTE / 4);

function bodies(side: "input" | "output", text: string) {
  const request = { model: "m", messages: [{ role: "user", content: side === "input" ? text : "hi" }] };
  const response = { choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
  return side === "input" ? { request } : { request, response };
}

describe.each(checks.map((check) => [check.id, check] as const))("%s on 1 MB of adversarial text", (_id, check) => {
  it.each(texts)(`%s finishes within ${BOUND_MS / 1000} s, in time linear in its length`, async (name, text) => {
    const side = check.sides[0] as "input" | "output";
    const parameters = { ...check.examples[0]?.parameters, timeout: 600_000 };
    const run = async (t: string) => {
      let result: CheckResult | undefined;
      const elapsed = await cpuMs(async () => {
        const evaluation = await engine.evaluate({
          side,
          requestType: "chatComplete",
          ...bodies(side, t),
          guardrails: [{ checks: [{ id: check.id, parameters }] }],
        });
        result = evaluation.results[0]?.checks[0];
      });
      return { elapsed, result };
    };
    const quarter = quarters[name] as string;
    const { elapsed, result } = await run(text);
    expect(result?.error).toBeUndefined();
    expect(elapsed).toBeLessThan(BOUND_MS);
    // Only a check slow enough to matter is compared with its cost on a quarter of the text: the
    // quarter's cost is its better of two (the first warms caches). A quadratic check fails every
    // attempt; a linear one only when other work stole the CPU, so the ratio gets three attempts.
    let ratio = elapsed > RATIO_FLOOR_MS ? Infinity : 0;
    for (let attempt = 0; attempt < 3 && ratio >= RATIO_BOUND; attempt++) {
      const small = Math.min((await run(quarter)).elapsed, (await run(quarter)).elapsed);
      const large = attempt === 0 ? elapsed : (await run(text)).elapsed;
      ratio = large / Math.max(small, 1);
    }
    expect(ratio).toBeLessThan(RATIO_BOUND);
  });
});

it("covers every deterministic check of the default plugin", () => {
  expect(checks.length).toBeGreaterThanOrEqual(17);
  expect(texts.every(([, text]) => text.length >= 1 << 19)).toBe(true);
});
