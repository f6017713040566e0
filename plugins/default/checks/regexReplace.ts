import {
  compileRegex,
  defineCheck,
  type ParameterProblem,
  parseRegexRule,
  type Regex,
  textExcerpt,
} from "../../../core/index.js";
import { transformSlots } from "../shared/slot-transform.js";

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

/** What `redactText` inserts for one match: `$&`, `$1`…`$99`, `$<name>` and `$$` expanded, as JavaScript does. */
function expand(template: string, match: RegExpExecArray): string {
  if (!template.includes("$")) return template;
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    const next = template[i + 1];
    if (c !== "$" || next === undefined) {
      out += c;
      continue;
    }
    if (next === "$") {
      out += "$";
      i++;
    } else if (next === "&") {
      out += match[0];
      i++;
    } else if (next === "<" && match.groups) {
      const close = template.indexOf(">", i + 2);
      if (close < 0) {
        out += c;
        continue;
      }
      out += match.groups[template.slice(i + 2, close)] ?? "";
      i = close;
    } else if (next >= "0" && next <= "9") {
      // Two digits when that group exists, as JavaScript reads `$12`; `$0` is no group.
      const two = Number(template.slice(i + 1, i + 3));
      const one = Number(next);
      if (template.length > i + 2 && /\d/.test(template[i + 2] as string) && two >= 1 && two < match.length) {
        out += match[two] ?? "";
        i += 2;
      } else if (one >= 1 && one < match.length) {
        out += match[one] ?? "";
        i++;
      } else out += c;
    } else out += c;
  }
  return out;
}

/**
 * Replaces the matches of a pattern in a text (all of them with the `g` flag, else the first) and
 * counts them, in one pass of `exec`. Done here rather than by the RE2 build's own replace: one of
 * the builds loops forever on a pattern that matches the empty string.
 */
function replaceAll(regex: Regex, text: string, template: string): { text: string; count: number } {
  regex.lastIndex = 0;
  const pieces: string[] = [];
  let last = 0;
  let count = 0;
  try {
    for (;;) {
      const match = regex.exec(text);
      if (!match) break;
      count++;
      pieces.push(text.slice(last, match.index), expand(template, match));
      last = match.index + match[0].length;
      if (!regex.global) break;
      if (match[0] === "") {
        // An empty match does not move lastIndex: step over one code point so the scan goes on.
        const code = text.codePointAt(match.index) ?? 0;
        const next = match.index + (code > 0xffff ? 2 : 1);
        if (next > text.length) break;
        regex.lastIndex = next;
      }
    }
  } finally {
    regex.lastIndex = 0;
  }
  if (count === 0) return { text, count };
  pieces.push(text.slice(last));
  return { text: pieces.join(""), count };
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
      verdict: true,
      data: { matchCount: 1 },
      transformedText: "My number is [SSN].",
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
      const replaced = replaceAll(regex, text, redactText);
      matchCount += replaced.count;
      return replaced.text;
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
