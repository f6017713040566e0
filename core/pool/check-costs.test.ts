import { describe, expect, it } from "vitest";
import { CheckCosts, sizeClass } from "./check-costs.js";

describe("check costs", () => {
  it("classes sizes by powers of two", () => {
    expect([0, 1, 2, 3, 4, 1023, 1024, 1025].map(sizeClass)).toEqual([0, 1, 2, 2, 3, 10, 11, 11]);
  });

  it("has no estimate until measured, then follows the measurements", () => {
    const costs = new CheckCosts();
    expect(costs.estimate("default.wordCount", 1_000)).toBeUndefined();
    costs.learn("default.wordCount", 1_000, 100);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(100);
    expect(costs.estimate("default.wordCount", 600)).toBe(100);
    expect(costs.estimate("default.wordCount", 2_000)).toBeUndefined();
    for (let i = 0; i < 50; i++) costs.learn("default.wordCount", 1_000, 10);
    expect(costs.estimate("default.wordCount", 1_000)).toBeCloseTo(10, 0);
    expect(costs.estimate("default.regexMatch", 1_000)).toBeUndefined();
  });

  it("lets one outlier move the estimate by a fifth at most, and a lasting change through", () => {
    const costs = new CheckCosts();
    for (let i = 0; i < 20; i++) costs.learn("default.wordCount", 1_000, 10);
    costs.learn("default.wordCount", 1_000, 5_000);
    expect(costs.estimate("default.wordCount", 1_000)).toBeCloseTo(12, 5);
    for (let i = 0; i < 60; i++) costs.learn("default.wordCount", 1_000, 1_000);
    expect(costs.estimate("default.wordCount", 1_000)).toBeGreaterThan(990);
  });

  it("takes a worker's time as a first estimate, then only to lower it", () => {
    const costs = new CheckCosts();
    costs.lower("default.wordCount", 1_000, 300);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(300);
    // A worker that waited for a core: the estimate stays.
    for (let i = 0; i < 20; i++) costs.lower("default.wordCount", 1_000, 900);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(300);
    for (let i = 0; i < 50; i++) costs.lower("default.wordCount", 1_000, 20);
    expect(costs.estimate("default.wordCount", 1_000)).toBeCloseTo(20, 0);
    // A run on the calling thread moves it either way.
    costs.learn("default.wordCount", 1_000, 40);
    expect(costs.estimate("default.wordCount", 1_000)).toBeGreaterThan(20);
  });
});
