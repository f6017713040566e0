import { defineCheck, textExcerpt } from "../../../core/index.js";
import { findNeedle, foldCase, needle } from "../shared/word-search.js";

type Operator = "any" | "all" | "none";

interface Parameters {
  words: string[];
  operator: Operator;
  caseSensitive: boolean;
  wholeWord: boolean;
}

const RULES: Record<Operator, { pass: string; fail: string }> = {
  any: { pass: "at least one of the words was found", fail: "none of the words was found" },
  all: { pass: "all of the words were found", fail: "some of the words are missing" },
  none: { pass: "none of the words was found", fail: "some of the words were found" },
};

/**
 * Looks for words or phrases in the text. Both sides are compared in Unicode NFC, so a composed
 * "é" matches a decomposed one; case-insensitive matching uses full case folding.
 */
export default defineCheck<Parameters>({
  id: "contains",
  name: "Contains",
  description: "Checks whether the text contains any, all or none of a list of words or phrases.",
  sides: ["input", "output"],
  // `none` looks for words, which lie within a window; `any` and `all` require them somewhere in the answer.
  streamScope: { windowWhen: { operator: "none" } },
  parameters: {
    type: "object",
    properties: {
      words: {
        type: "array",
        items: { type: "string", minLength: 1 },
        minItems: 1,
        description: "The words or phrases to look for.",
      },
      operator: {
        type: "string",
        enum: ["any", "all", "none"],
        default: "any",
        description: "any: pass when at least one is found; all: when every one is found; none: when none is found.",
      },
      caseSensitive: { type: "boolean", default: true, description: "Match letter case exactly." },
      wholeWord: {
        type: "boolean",
        default: false,
        description: "Match whole words only: `cat` does not match inside `concatenate`.",
      },
    },
    required: ["words"],
    additionalProperties: false,
  },
  data: {
    foundWords: { type: "string[]", description: "The configured words found in the text, in configured order." },
    missingWords: { type: "string[]", description: "The configured words not found." },
    operator: { type: "string", description: "The operator applied." },
    caseSensitive: { type: "boolean", description: "Whether case was matched exactly." },
    wholeWord: { type: "boolean", description: "Whether only whole words matched." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { words: ["refund", "cancel"], operator: "any", caseSensitive: false, wholeWord: true },
      text: "I want to cancel my order.",
      description: "Route refund or cancellation requests.",
      verdict: true,
      data: { foundWords: ["cancel"] },
    },
  ],
  notes: [
    "A substring test by default, as the peer gateway's check is; `wholeWord` asks for a word boundary at each end of the phrase that starts or ends with a letter, digit or underscore.",
    "Scripts written without spaces (Chinese, Japanese, Thai, …) have no word boundaries to test, so a phrase in them matches anywhere.",
    "",
    "Text and words are compared in Unicode NFC. With `caseSensitive: false` both are case-folded (upper then lower case), so `STRASSE` matches `straße`.",
    "",
    "An empty text contains nothing: `any` and `all` fail, `none` passes.",
  ].join("\n"),
  run({ text }, { words, operator, caseSensitive, wholeWord }) {
    const fold = (s: string) => (caseSensitive ? s.normalize("NFC") : foldCase(s.normalize("NFC")));
    const haystack = fold(text);
    const foundWords: string[] = [];
    const missingWords: string[] = [];
    for (const word of words) {
      (findNeedle(haystack, needle(fold(word), wholeWord)) >= 0 ? foundWords : missingWords).push(word);
    }
    const verdict =
      operator === "any" ? foundWords.length > 0 : operator === "all" ? missingWords.length === 0 : foundWords.length === 0;
    const rule = RULES[operator];
    const explanation = `Operator "${operator}": ${verdict ? rule.pass : rule.fail} (found ${foundWords.length} of ${words.length}).`;
    return {
      verdict,
      data: {
        foundWords,
        missingWords,
        operator,
        caseSensitive,
        wholeWord,
        verdict,
        explanation,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
