/**
 * The bounded fuzz of `npm test`: a fixed seed and a few thousand cases (gateway-fuzz.ts). `npm
 * run fuzz` runs the same with FUZZ_RUNS cases and a random seed (or FUZZ_SEED), and prints a summary.
 */
import { expect, it } from "vitest";
import { fuzzGateway } from "./gateway-fuzz.js";

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const seed =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? Date.now() % 2 ** 31 : 20261123;

it(`answers ${runs} random requests below 500, in time, and logs every inference request (seed ${seed})`, async () => {
  const summary = await fuzzGateway({ runs, seed });
  if (process.env.FUZZ_RUNS) console.log(`fuzz summary\n${JSON.stringify(summary, null, 2)}`);
  expect(summary.runs).toBe(runs);
  expect(Object.keys(summary.byStatus).every((status) => Number(status) < 500)).toBe(true);
  expect(summary.inferenceAnswered).toBeGreaterThan(runs / 10);
  expect(summary.inferenceLogged).toBe(summary.inferenceAnswered);
}, 600_000);
