import { compileRegex, defineCheck, firstMatch, textExcerpt } from "../../../core/index.js";

/**
 * Passes when the pattern matches the text (fails when it does, with `not`). Patterns run on RE2:
 * linear time whatever the pattern, so no user pattern can stall the service; RE2 has no
 * backreferences or lookaround, and a pattern using them is a check error (SyntaxError), as is any
 * invalid pattern.
 */
export default defineCheck<{ rule: string; not: boolean }>({
  id: "regexMatch",
  name: "Regex match",
  description: "Checks whether the text matches a regular expression (RE2 syntax).",
  sides: ["input", "output"],
  // With `not` it looks for a match, which lies within a window; without, it requires one somewhere in the answer.
  streamScope: { windowWhen: { not: true } },
  parameters: {
    type: "object",
    properties: {
      rule: {
        type: "string",
        minLength: 1,
        description: "The regular expression, in RE2 syntax (no flags; use (?i) for case-insensitive).",
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the pattern does not match." },
    },
    required: ["rule"],
    additionalProperties: false,
  },
  data: {
    regexPattern: { type: "string", description: "The pattern applied." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
    matchDetails: {
      type: "object | null",
      description:
        "The first match: `matchedText`, `index` and `length` (UTF-16 units), `captures` (the numbered groups' texts, null when one did not take part) and `groups` (the named groups' texts); null when none. On a denied side, or one a check transformed, only `index` and `length` remain.",
      echoesText: ["matchedText", "captures", "groups"],
    },
  },
  examples: [
    {
      parameters: { rule: "\\d{3}-\\d{2}-\\d{4}", not: true },
      text: "No numbers here.",
      description: "No SSN-like number.",
      verdict: true,
      data: { not: true, matchDetails: null },
    },
  ],
  run({ text }, { rule, not }) {
    const match = firstMatch(compileRegex(rule), text);
    const matched = match !== null;
    const verdict = not ? !matched : matched;
    const found = matched ? "The pattern matched the text" : "The pattern did not match the text";
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    return {
      verdict,
      data: {
        regexPattern: rule,
        not,
        verdict,
        explanation: `${found}${inverted}.`,
        textExcerpt: textExcerpt(text),
        // The engine withholds the members that carry text wherever the side is denied or transformed.
        matchDetails: match
          ? {
              matchedText: match[0],
              index: match.index,
              length: match[0].length,
              captures: match.slice(1).map((c) => c ?? null),
              groups: Object.fromEntries(Object.entries(match.groups ?? {}).map(([name, c]) => [name, c ?? null])),
            }
          : null,
      },
    };
  },
});
