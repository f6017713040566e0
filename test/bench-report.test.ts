/** The benchmark's helpers: exact-size sample texts and the report's rendering. */
import { describe, expect, it } from "vitest";
import { micros, type Report, renderMarkdown, sizeLabel } from "../bench/checks-report.js";
import { sampleText } from "../bench/sample-text.js";

describe("sampleText", () => {
  it("is exactly the asked number of UTF-8 bytes, the same on every run, with some non-ASCII", () => {
    for (const bytes of [1, 100, 1024, 10 * 1024, 100 * 1024]) {
      const text = sampleText(bytes);
      expect(Buffer.byteLength(text)).toBe(bytes);
      expect(sampleText(bytes)).toBe(text);
    }
    expect(Buffer.byteLength(sampleText(10 * 1024))).toBeGreaterThan(sampleText(10 * 1024).length);
    expect(sampleText(1024, 43)).not.toBe(sampleText(1024, 42));
  });
});

describe("report", () => {
  it("labels sizes and microseconds for tables", () => {
    expect([1024, 10 * 1024, 1024 * 1024, 25].map(sizeLabel)).toEqual(["1 KB", "10 KB", "1 MB", "25 B"]);
    expect([0.1234, 12.345, 999.4, 123456.7].map(micros)).toEqual(["0.123", "12.3", "999", "123,457"]);
  });

  it("renders every section from a result file", () => {
    const report: Report = {
      machine: { cpus: 2, model: "Test CPU", node: "v20.20.2" },
      date: "2026-01-01T00:00:00.000Z",
      pool: {
        round_trip_us: 15,
        round_trip_p99_us: 80,
        size: 2,
        phase_checks: ["default.regexMatch"],
        phase_inline_median_us: 10,
        phase_pool_median_us: 40,
        phase_overhead_us: 30,
        phases_per_s: 20_000,
        in_flight: 64,
        phases_per_task: 3.5,
        inline_phases_per_s: 50_000,
        event_loop_p99_ms: 1.2,
        event_loop_p99_ms_inline: 201,
        inline_budget_us: 30,
        idle_inline_budget_us: 120,
        hand_over: [{ in_flight: 2, inline_loop_us: 41.5, inline_cpu_us: 43, pool_loop_us: 57.4, pool_cpu_us: 152 }],
      },
      results: [
        { check: "default.regexMatch", size_bytes: 1024, executor: "inline", median_us: 3, p99_us: 5, ops_per_s: 300_000 },
        { check: "default.regexMatch", size_bytes: 1024, executor: "pool", median_us: 40, p99_us: 90, ops_per_s: 25_000 },
      ],
      regex: [{ engine: "re2", pattern: "a|b", size_bytes: 1024, median_us: 1.5 }],
    };
    const markdown = renderMarkdown(report, {
      quick: false,
      load: ["0.10", "0.20", "0.30"],
      skipped: ["webhook.call (network)"],
    });
    expect(markdown).toContain("2 × Test CPU, Node v20.20.2");
    expect(markdown).toContain("| `default.regexMatch` | 3 | 40 |");
    expect(markdown).toContain("| `a\\|b` | 1 KB | 1.5 |");
    expect(markdown).toContain("`webhook.call (network)`");
    expect(markdown).toContain("| sustained phases/s through the pool, 64 in flight | 20,000 (target ≥ 20,000) |");
    expect(markdown).toContain("| phases per worker task in that run | 3.5 |");
    expect(markdown).toContain("| auto executor's inline budget, event loop busy / mostly idle | 30 / 120 µs |");
    expect(markdown).toContain("| 2 | 41.5 / 43 | 57.4 / 152 |");
  });
});
