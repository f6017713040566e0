/** The peer gateway's config in the gateway benchmark: the standard pack in its form, check for check. */
import { describe, expect, it } from "vitest";
import { peerConfigHeader } from "../bench/peer-config.js";
import { STANDARD_PACK } from "../bench/standard-pack.js";

interface Hook {
  type: string;
  id: string;
  deny: boolean;
  checks: Array<{ id: string; parameters: Record<string, unknown> }>;
}

describe("peer config", () => {
  const config = JSON.parse(peerConfigHeader(4321, true)) as {
    provider: string;
    custom_host: string;
    before_request_hooks: Hook[];
    after_request_hooks: Hook[];
  };

  it("reaches the same upstream and carries the pack's eight checks, five in and three out", () => {
    expect(config.provider).toBe("openai");
    expect(config.custom_host).toBe("http://127.0.0.1:4321/v1");
    expect(config.before_request_hooks.map((h) => h.checks.length)).toEqual([5]);
    expect(config.after_request_hooks.map((h) => h.checks.length)).toEqual([3]);
    expect(config.before_request_hooks[0]?.checks.map((c) => c.id)).toEqual([
      "default.wordCount",
      "default.sentenceCount",
      "default.characterCount",
      "default.regexMatch",
      "default.regexMatch",
    ]);
    expect([...config.before_request_hooks, ...config.after_request_hooks].every((h) => h.type === "guardrail" && !h.deny)).toBe(
      true,
    );
    expect(JSON.parse(peerConfigHeader(4321, false))).not.toHaveProperty("before_request_hooks");
  });

  it("keeps the pack's parameters, with absent lower bounds as 0", () => {
    const [words, sentences, characters, ssn] = config.before_request_hooks[0]?.checks ?? [];
    expect(words?.parameters).toEqual({ minWords: 1, maxWords: 5000 });
    expect(sentences?.parameters).toEqual({ minSentences: 1, maxSentences: 500 });
    expect(characters?.parameters).toEqual({ minCharacters: 0, maxCharacters: 50000 });
    expect(ssn?.parameters).toEqual({ rule: STANDARD_PACK.input_guardrails[0]?.ssn.rule, not: true });
  });

  it("writes the case-insensitive pattern so a flagless RegExp matches what (?i) would", () => {
    const rule = config.after_request_hooks[0]?.checks[2]?.parameters.rule as string;
    const caseless = /(api[_-]?key|password)\s*[:=]/i;
    for (const text of ["API_KEY: x", "Password = y", "apikey:", "pass word:", "my api key", "PaSsWoRd:"]) {
      expect(new RegExp(rule).test(text)).toBe(caseless.test(text));
    }
  });
});
