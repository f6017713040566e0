/** The result times: the same strings and numbers as Date's and toPrecision's, computed for less. */
import { describe, expect, it } from "vitest";
import { elapsed, fourDigits, isoAt, isoNow } from "./clock.js";

describe("isoAt", () => {
  it("formats as toISOString does, across seconds, years and the epoch", () => {
    const times = [
      0,
      1,
      999,
      1000,
      -1,
      -999,
      -1000,
      -1001,
      Date.UTC(2026, 10, 26, 3, 31, 47, 5),
      Date.UTC(2026, 10, 26, 3, 31, 47, 50),
      Date.UTC(2026, 10, 26, 3, 31, 47, 999),
      Date.UTC(2026, 10, 26, 3, 31, 48, 0),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(12000, 0, 1, 0, 0, 0, 7),
      Date.UTC(-50, 0, 1, 0, 0, 0, 70),
    ];
    // A run of consecutive milliseconds, as a busy phase stamps them, and the same one twice.
    const start = Date.UTC(2026, 10, 26, 3, 59, 59, 990);
    for (let ms = start; ms < start + 30; ms++) times.push(ms, ms);
    expect(times.map(isoAt)).toEqual(times.map((ms) => new Date(ms).toISOString()));
  });

  it("is now, for isoNow", () => {
    const before = Date.now();
    const now = Date.parse(isoNow());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe("fourDigits", () => {
  it("is Number(x.toPrecision(4)) for durations of every size, ties included", () => {
    const values = [
      0,
      1,
      9.9995,
      9.99949,
      1.0005,
      1.00049,
      0.12345,
      0.0012345,
      2.5e-5,
      1234.5,
      12345,
      99995,
      999_950,
      1e21,
      1e-21,
      1e-30,
      1e30,
      4.35,
      0.1 + 0.2,
      1000,
      0.001,
      100.05,
      -1.0005,
      -0.12345,
      -12345,
    ];
    // Seeded pseudo-random values over nine orders of magnitude, and timer-like differences.
    let seed = 7;
    const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) values.push(next() * 10 ** Math.floor(next() * 9 - 4));
    for (let i = 0; i < 2_000; i++) values.push(Math.round(next() * 1e9) / 1e6 - Math.round(next() * 1e8) / 1e6);
    expect(values.map(fourDigits)).toEqual(values.map((x) => Number(x.toPrecision(4))));
    expect([Number.NaN, Number.POSITIVE_INFINITY, -0].map(fourDigits)).toEqual([Number.NaN, Number.POSITIVE_INFINITY, -0]);
  });

  it("gives elapsed time in ms, four digits", () => {
    expect(elapsed(10, 10.0041234)).toBe(0.004123);
    expect(elapsed(0, 1234.56)).toBe(1235);
  });
});
