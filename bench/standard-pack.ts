/**
 * The standard pack the benchmarks measure "with the pack": an input guardrail of five
 * deterministic checks, an output guardrail of three. A module of its own, free of side effects, so
 * a benchmark can import it without starting the gateway benchmark's servers.
 */
export const STANDARD_PACK = {
  input_guardrails: [
    {
      id: "input-pack",
      wordCount: { minWords: 1, maxWords: 5000 },
      sentenceCount: { minSentences: 1, maxSentences: 500 },
      characterCount: { maxCharacters: 50000 },
      ssn: { id: "default.regexMatch", rule: "\\b\\d{3}-\\d{2}-\\d{4}\\b", not: true },
      card: { id: "default.regexMatch", rule: "\\b(?:\\d[ -]?){13,16}\\b", not: true },
    },
  ],
  output_guardrails: [
    {
      id: "output-pack",
      wordCount: { maxWords: 5000 },
      characterCount: { maxCharacters: 50000 },
      secrets: { id: "default.regexMatch", rule: "(?i)(api[_-]?key|password)\\s*[:=]", not: true },
    },
  ],
};
