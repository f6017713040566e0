import type { ParameterProblem } from "../../core/plugin-api.js";
import { defineCheck } from "../../core/plugin-api.js";
import { compileRegex, parseRegexRule, type Regex, replaceMatches } from "../../core/regex.js";
import { textExcerpt } from "../../core/text.js";
import { transformSlots } from "./slot-transform.js";

interface Parameters {
  rule: string;
  redactText: string;
  failOnDetection: boolean;
}

/**
 * `` $` `` and `$'` insert the text before or after each match: with many matches the result grows
 * with the square of the text. They are refused when the guardrail is loaded; `$$` is a literal `$`.
 */
function replacementProblem(replacement: string): ParameterProblem | undefined {
  for (let i = 0; i < replacement.length - 1; i++) {
    if (replacement[i] !== "$") continue;
    const next = replacement[i + 1];
    if (next === "$") i++;
    else if (next === "`" || next === "'") {
      return { parameter: "redactText", message: `"$${next}" is not supported (it copies the rest of the text per match)` };
    }
  }
  return undefined;
}

/** Number of matches a replacement will touch: all with the `g` flag, else at most one. */
function countMatches(regex: Regex, text: string): number {
  regex.lastIndex = 0;
  if (!regex.global) {
    const found = regex.exec(text) !== null;
    regex.lastIndex = 0;
    return found ? 1 : 0;
  }
  let count = 0;
  for (;;) {
    const match = regex.exec(text);
    if (!match) break;
    count++;
    if (match[0] === "") {
      // An empty match does not move lastIndex: step over one code point so the scan goes on.
      const code = text.codePointAt(match.index) ?? 0;
      const next = match.index + (code > 0xffff ? 2 : 1);
      if (next > text.length) break;
      regex.lastIndex = next;
    }
  }
  regex.lastIndex = 0;
  return count;
}

/**
 * Replaces what a regular expression matches, in every text part of the evaluated content. RE2
 * only, so every pattern runs in linear time; RE2 has no backreferences or lookaround, and a
 * pattern using them (or any invalid pattern) is a check error (SyntaxError).
 */
export default defineCheck<Parameters>({
  id: "regexReplace",
  name: "Regex replace",
  description:
    "Replaces matches of a regular expression (RE2 syntax) in the text, e.g. to redact; optionally fails when it matched.",
  sides: ["input", "output"],
  transforms: true,
  parameters: {
    type: "object",
    properties: {
      rule: {
        type: "string",
        minLength: 1,
        description:
          "The pattern, in RE2 syntax: plain (every match is replaced) or `/pattern/flags` (flags g, i, m, s, u; without g only the first match is replaced).",
      },
      redactText: {
        type: "string",
        default: "[REDACTED]",
        description:
          "What each match is replaced with; may be empty. `$&` inserts the match, `$1` or `$<name>` a group, `$$` a dollar sign.",
      },
      failOnDetection: {
        type: "boolean",
        default: false,
        description: "Fail the check when the pattern matched (the text is replaced all the same).",
      },
    },
    required: ["rule"],
    additionalProperties: false,
  },
  data: {
    regexPattern: { type: "string", description: "The rule applied." },
    matchCount: { type: "number", description: "How many matches were replaced." },
    failOnDetection: { type: "boolean", description: "Whether a match fails the check." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "What was replaced and why the check passed or failed." },
    textExcerpt: {
      type: "string",
      description: "The first 100 characters of the text after replacement (never the replaced content).",
    },
  },
  examples: [
    {
      parameters: { rule: "/\\b\\d{3}-\\d{2}-\\d{4}\\b/g", redactText: "[SSN]" },
      text: "My number is 123-45-6789.",
      description: "Redact SSN-shaped numbers.",
    },
  ],
  notes: [
    "The pattern is applied to each text part of the evaluated content on its own (each content part, content block or prompt entry), so a match never spans two parts and the body keeps its shape; an empty result is kept as an empty string.",
    "",
    "A plain rule replaces every match. A rule written `/pattern/flags` uses its flags, as JavaScript does: without `g` only the first match of each part is replaced.",
    "",
    "In `redactText`, `` $` `` and `$'` (the text before and after the match) are refused when the guardrail is loaded: with many matches they would make the result grow with the square of the text.",
    "",
    "The check passes unless `failOnDetection` is true and something matched; the replacement happens either way.",
  ].join("\n"),
  validate: (p) => replacementProblem(p.redactText),
  run(context, { rule, redactText, failOnDetection }) {
    const { pattern, flags } = parseRegexRule(rule);
    const literal = pattern !== rule;
    const regex = compileRegex(pattern, literal ? flags : "g");
    let matchCount = 0;
    const result = transformSlots(context, (text) => {
      const count = countMatches(regex, text);
      if (count === 0) return text;
      matchCount += count;
      return replaceMatches(regex, text, redactText);
    });
    const verdict = !(failOnDetection && matchCount > 0);
    const explanation =
      matchCount === 0
        ? "The pattern did not match; nothing was replaced."
        : `The pattern matched ${matchCount} time${matchCount === 1 ? "" : "s"}; the match${matchCount === 1 ? " was" : "es were"} replaced${
            failOnDetection ? ", and failOnDetection fails the check" : ""
          }.`;
    return {
      verdict,
      data: { regexPattern: rule, matchCount, failOnDetection, verdict, explanation, textExcerpt: textExcerpt(result.text) },
      ...result.outcome,
    };
  },
});
