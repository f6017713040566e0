import { afterEach, describe, expect, it, vi } from "vitest";
import { progressLine } from "./progress-line.js";

function written(run: () => void): string {
  const writes: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    writes.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return writes.join("");
}

afterEach(() => vi.restoreAllMocks());

describe("progressLine", () => {
  it("gives the share done, not the tenth it falls in", () => {
    const out = written(() => {
      const line = progressLine(false, "evaluating", "evaluated");
      for (let done = 1; done <= 3; done++) line.update(done, 3);
      line.end();
    });
    expect(out).toBe("evaluated 1/3 (33%)\nevaluated 2/3 (66%)\nevaluated 3/3 (100%)\n");
  });

  it("prints a plain line for the first row, then only when another tenth is done", () => {
    const out = written(() => {
      const line = progressLine(false, "replaying", "replayed");
      for (let done = 1; done <= 100; done++) line.update(done, 100);
    });
    expect(out.trim().split("\n")).toHaveLength(11);
    expect(out).toContain("replayed 10/100 (10%)\n");
  });

  it("redraws one bar on a terminal and ends it with a newline", () => {
    const out = written(() => {
      const line = progressLine(true, "evaluating", "evaluated");
      line.note("reading: 3");
      line.update(1, 2);
      line.update(2, 2);
      line.end();
      line.end();
    });
    expect(out).toContain("\rreading: 3");
    expect(out).toContain("evaluating [###############...............] 1/2 (50%)");
    expect(out.endsWith("2/2 (100%)\n")).toBe(true);
  });
});
