/** The JSON size bound: never below the real size, and a refusal for whatever it cannot bound. */
import { describe, expect, it } from "vitest";
import { jsonFits } from "./json-size.js";

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** Strings whose JSON is as large per code unit as JSON makes it. */
const WORST = ["\u0000\u001f\u007f", "\ud800", "\udfff\ud800", '"\\', "é€😀", "\u2028\u2029"];

describe("jsonFits", () => {
  const values: unknown[] = [
    {},
    [],
    { a: 1, b: "two", c: null, d: true, e: [1, 2, 3] },
    { n: -2.2250738585072014e-308, m: -1.7976931348623157e308, k: Number.NaN, i: Number.NEGATIVE_INFINITY },
    [undefined, undefined, { gone: undefined }],
    Object.assign(Object.create(null), { x: "no prototype" }),
    { nested: { deeper: [{ deepest: WORST }] } },
    Object.fromEntries(WORST.map((s, i) => [s.repeat(i + 1), s.repeat(20)])),
  ];

  it("passes a value only at or above its real JSON size", () => {
    for (const value of values) {
      const size = bytes(value);
      expect(jsonFits(value, size - 1), JSON.stringify(value)).toBe(false);
    }
    // The bound is loose but of the same order: a worst-case string fits at six bytes a unit.
    for (const s of WORST) expect(jsonFits(s, 2 + 6 * s.length)).toBe(true);
  });

  it("passes small plain data under a cap far above its size", () => {
    for (const value of values) expect(jsonFits(value, 32 * 1024), JSON.stringify(value)).toBe(true);
  });

  it("refuses what it cannot bound, so that the caller measures it", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const hostile = Object.defineProperty({}, "boom", {
      enumerable: true,
      get() {
        throw new Error("no");
      },
    });
    const refused: unknown[] = [
      { when: new Date(0) },
      { own: { toJSON: () => "x".repeat(100_000) } },
      { big: 1n },
      { fn: () => 1 },
      { sym: Symbol("s") },
      { map: new Map() },
      cycle,
      hostile,
    ];
    for (const value of refused) expect(jsonFits(value, 1_000_000)).toBe(false);
  });

  it("stops early on a value far over the cap", () => {
    const huge = new Array(1e9);
    expect(jsonFits(huge, 32 * 1024)).toBe(false);
    expect(jsonFits({ long: "x".repeat(1e6) }, 32 * 1024)).toBe(false);
  });
});
