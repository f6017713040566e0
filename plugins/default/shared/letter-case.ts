/**
 * The shared definition of alluppercase and alllowercase. A letter breaks "all upper case" when
 * upper-casing would change it (Unicode's Changes_When_Uppercased property), and likewise for
 * lower case, so every cased script counts (Latin, Greek, Cyrillic, Armenian, Georgian, Deseret, …),
 * title-case letters such as "ǅ" break both, and letters with no case (Chinese, Arabic, digits) never do.
 */
import { type CheckDefinition, defineCheck, textExcerpt } from "../../../core/index.js";

/** Which case a check requires. */
export type LetterCase = "upper" | "lower";

const OFFENDING: Record<LetterCase, RegExp> = {
  upper: /\p{Changes_When_Uppercased}/gu,
  lower: /\p{Changes_When_Lowercased}/gu,
};

/** Count of letters not in the wanted case, and the first of them. */
function offending(text: string, wanted: LetterCase): { count: number; first: { character: string; index: number } | null } {
  const pattern = new RegExp(OFFENDING[wanted]);
  let count = 0;
  let first: { character: string; index: number } | null = null;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (!first) first = { character: match[0], index: match.index };
    count++;
  }
  return { count, first };
}

/** Builds the alluppercase or alllowercase check. */
export function letterCaseCheck(wanted: LetterCase): CheckDefinition<{ not: boolean }> {
  const word = wanted === "upper" ? "upper" : "lower";
  const other = wanted === "upper" ? "lower" : "upper";
  return defineCheck<{ not: boolean }>({
    id: `all${word}case`,
    name: `All ${word} case`,
    description: `Checks that every cased letter of the text is ${word} case; text with no cased letters passes.`,
    sides: ["input", "output"],
    parameters: {
      type: "object",
      properties: {
        not: {
          type: "boolean",
          default: false,
          description: `Invert the verdict: pass when some letter is not ${word} case.`,
        },
      },
      additionalProperties: false,
    },
    data: {
      offendingLetters: { type: "number", description: `Letters that are not ${word} case (${other} or title case).` },
      firstOffending: {
        type: "object | null",
        description: "The first such letter: character and index (UTF-16 offset in the text); null when none.",
      },
      not: { type: "boolean", description: "Whether the verdict was inverted." },
      verdict: { type: "boolean", description: "The check's verdict." },
      explanation: { type: "string", description: "Why the check passed or failed." },
      textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
    },
    examples: [
      wanted === "upper"
        ? { parameters: {}, text: "WARNING: ΠΡΟΣΟΧΗ 42", description: "Shouting is required.", verdict: true }
        : {
            parameters: { not: true },
            text: "hello there",
            description: "Fail a reply written entirely in lower case.",
            verdict: false,
          },
    ],
    notes: [
      `A character counts against the check when ${word}-casing it would change it (Unicode's \`Changes_When_${word === "upper" ? "Uppercased" : "Lowercased"}\` property).`,
      "So every cased script counts, not just ASCII (Latin with accents, Greek, Cyrillic, Armenian, Georgian, Cherokee, Deseret, …),",
      "title-case letters such as `ǅ` count against both checks, and characters without case (digits, punctuation, Chinese, Arabic, emoji) never count.",
      "A text with no cased letters, the empty text included, passes.",
    ].join(" "),
    run({ text }, { not }) {
      const { count, first } = offending(text, wanted);
      const all = count === 0;
      const verdict = not ? !all : all;
      const found = all
        ? `Every cased letter is ${word} case`
        : `${count} letter${count === 1 ? " is" : "s are"} not ${word} case (first: "${first?.character}" at ${first?.index})`;
      const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
      return {
        verdict,
        data: {
          offendingLetters: count,
          firstOffending: first,
          not,
          verdict,
          explanation: `${found}${inverted}.`,
          textExcerpt: textExcerpt(text),
        },
      };
    },
  });
}
