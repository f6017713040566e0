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
    expect(costs.estimate("default.wordCount", 1_000)).toBe(10);
    expect(costs.estimate("default.regexMatch", 1_000)).toBeUndefined();
  });

  it("lets no delayed run raise the estimate, and a lasting change through once every recent run shows it", () => {
    const costs = new CheckCosts();
    for (let i = 0; i < 20; i++) costs.learn("default.wordCount", 1_000, 10);
    costs.learn("default.wordCount", 1_000, 5_000);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(10);
    // A loaded machine: most runs wait for a core, a few do not.
    for (let i = 0; i < 100; i++) costs.learn("default.wordCount", 1_000, i % 8 === 0 ? 12 : 150 + i);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(12);
    for (let i = 0; i < 16; i++) costs.learn("default.wordCount", 1_000, 1_000 + i);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(1_000);
  });

  it("comes down at once when a run shows the check cheaper (a cold first run, then warm ones)", () => {
    const costs = new CheckCosts();
    costs.learn("default.wordCount", 1_000, 37_000);
    costs.learn("default.wordCount", 1_000, 40);
    expect(costs.estimate("default.wordCount", 1_000)).toBe(40);
  });
});
