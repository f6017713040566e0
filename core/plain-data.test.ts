import { describe, expect, it } from "vitest";
import { isObject, plainDataProblem } from "./plain-data.js";

describe("plainDataProblem", () => {
  it("accepts what JSON and structured clone both carry", () => {
    expect(plainDataProblem({ a: [1, "x", true, null, { b: 2.5 }], c: undefined }, "data")).toBeUndefined();
    expect(plainDataProblem(Object.assign(Object.create(null), { a: 1 }), "data")).toBeUndefined();
  });

  it("names the first place that is not plain data", () => {
    expect(plainDataProblem({ a: { f: () => 1 } }, "data")).toBe("data.a.f is a function");
    expect(plainDataProblem({ when: new Date(0) }, "data")).toBe("data.when is a Date instance");
    expect(plainDataProblem({ list: [1, new Map()] }, "data")).toBe("data.list[1] is a Map instance");
    expect(plainDataProblem({ n: 10n }, "data")).toBe("data.n is a bigint");
    expect(plainDataProblem({ n: Number.NaN }, "data")).toBe("data.n is NaN");
    expect(plainDataProblem({ s: Symbol("x") }, "data")).toBe("data.s is a symbol");
  });

  it("stops on cycles", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(plainDataProblem(cycle, "data")).toMatch(/nested deeper than 64 levels/);
  });
});

describe("isObject", () => {
  it("holds for objects with fields to read, not for null, arrays or scalars", () => {
    expect(isObject({ a: 1 })).toBe(true);
    expect(isObject(Object.create(null))).toBe(true);
    for (const value of [null, undefined, [], [1], "x", 1, true]) expect(isObject(value)).toBe(false);
  });
});
