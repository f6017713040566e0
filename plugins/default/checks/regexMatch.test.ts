import { describe, expect, it } from "vitest";
import { runCheck } from "../../../test/support/run-check.js";

describe("default.regexMatch", () => {
  it("passes on a match and reports the match details", async () => {
    const result = await runCheck("default.regexMatch", { rule: "order (?P<id>\\d+)" }, "see order 1234 now");
    expect(result.verdict).toBe(true);
    expect(result.data).toEqual({
      regexPattern: "order (?P<id>\\d+)",
      not: false,
      verdict: true,
      explanation: "The pattern matched the text.",
      textExcerpt: "see order 1234 now",
      matchDetails: { matchedText: "order 1234", index: 4, length: 10, captures: ["1234"], groups: { id: "1234" } },
    });
  });

  it("fails without a match; not inverts", async () => {
    const miss = await runCheck("default.regexMatch", { rule: "\\d{3}-\\d{2}-\\d{4}" }, "nothing here");
    expect(miss.verdict).toBe(false);
    expect(miss.data.matchDetails).toBeNull();
    const inverted = await runCheck("default.regexMatch", { rule: "\\d{3}-\\d{2}-\\d{4}", not: true }, "ssn 123-45-6789");
    expect(inverted.verdict).toBe(false);
    expect(inverted.data.explanation).toBe("The pattern matched the text; the check is inverted (not: true), so it fails.");
  });

  it("reports an invalid pattern as a SyntaxError check error", async () => {
    const result = await runCheck("default.regexMatch", { rule: "[a-" }, "text");
    expect(result.verdict).toBe(false);
    expect(result.error).toMatchObject({ name: "SyntaxError" });
  });

  it("matches on the output side and on empty text", async () => {
    expect((await runCheck("default.regexMatch", { rule: "^$" }, "")).verdict).toBe(true);
    expect((await runCheck("default.regexMatch", { rule: "sorry" }, "sorry, no", "output")).verdict).toBe(true);
  });

  it("is linear on a catastrophic pattern", async () => {
    const result = await runCheck("default.regexMatch", { rule: "^(a+)+$" }, `${"a".repeat(50_000)}b`);
    expect(result.verdict).toBe(false);
    expect(result.execution_time).toBeLessThan(1_000);
  });
});
