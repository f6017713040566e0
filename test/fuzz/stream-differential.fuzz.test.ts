/**
 * The stream gives the verdict and the delivered text of the plain JSON answer (the differential
 * harness, stream-differential.ts). `npm test` runs a fixed seed and a few dozen cases, plus the
 * cases a run once found; `npm run fuzz` runs FUZZ_RUNS cases (20,000 by default) with a random
 * seed, or FUZZ_SEED, and prints how many ran.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Case, cases, type Harness, startHarness } from "./stream-differential.js";
import { REGRESSIONS } from "./stream-differential.regressions.js";

const runs = Number(process.env.FUZZ_RUNS ?? 40);
const seed =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? Date.now() % 2 ** 31 : 20261127;

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

it("agrees with the JSON answer on the cases a run once found", async () => {
  for (const c of REGRESSIONS) expect(await harness.check(c), JSON.stringify(c)).toBeUndefined();
});

it(
  `agrees with the JSON answer on ${runs} generated answers (seed ${seed})`,
  async () => {
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(cases, async (c: Case) => {
        ran++;
        // A long run says how far it got, so an interrupted one still has its figure.
        if (process.env.FUZZ_RUNS && ran % 500 === 0) console.log(`stream differential: ${ran} of ${runs} agreed so far`);
        const disagreement = await harness.check(c);
        if (disagreement) throw new Error(disagreement);
      }),
      { seed, numRuns: runs },
    );
    if (process.env.FUZZ_RUNS) console.log(`stream differential: ${ran} generated answers (seed ${seed}), no disagreement`);
    expect(ran).toBeGreaterThanOrEqual(runs);
  },
  Math.max(120_000, runs * 1_000),
);
