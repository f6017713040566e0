import { afterAll, describe, expect, it } from "vitest";
import { compileRegex, firstMatch, type RegexEngineName, regexEngine, useRegexEngine } from "./regex.js";

const initial = regexEngine();
afterAll(() => useRegexEngine(initial));

describe.each(["re2", "re2-wasm"] as RegexEngineName[])("ReDoS on %s", (name) => {
  it("matches ^(a+)+$ against 50,000 a's and a b in linear time", () => {
    useRegexEngine(name);
    const started = performance.now();
    const regex = compileRegex("^(a+)+$");
    expect(firstMatch(regex, `${"a".repeat(50_000)}b`)).toBeNull();
    expect(firstMatch(regex, "a".repeat(50_000))).not.toBeNull();
    // A backtracking engine would not finish in the lifetime of the test run.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
