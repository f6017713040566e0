import { defineCheck, textExcerpt } from "../../../core/index.js";
import { checkBounds, rangeProblem } from "../shared/count-bounds.js";
import { countWords } from "../shared/segments.js";

/**
 * Words are Unicode word segments that hold letters, digits or ideographs (UAX #29 with ICU's
 * dictionaries): "3.14" and "it's" are one word each, a hyphenated compound counts as its parts,
 * punctuation is no word, and Chinese or Japanese text without spaces is split into its words.
 */
export default defineCheck<{ minWords: number; maxWords?: number; not: boolean }>({
  id: "wordCount",
  name: "Word count",
  description: "Checks that the number of words in the text is within a range.",
  sides: ["input", "output"],
  // On a held stream, a count of the whole answer.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      minWords: { type: "integer", minimum: 0, default: 0, description: "Minimum number of words (inclusive)." },
      maxWords: { type: "integer", minimum: 0, description: "Maximum number of words (inclusive); no maximum when absent." },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the count is outside the range." },
    },
    additionalProperties: false,
  },
  data: {
    wordCount: { type: "number", description: "Words counted in the text." },
    minWords: { type: "number", description: "The minimum applied." },
    maxWords: { type: "number | null", description: "The maximum applied, null when none." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { minWords: 1, maxWords: 100 },
      text: "A short answer.",
      description: "Between 1 and 100 words.",
      verdict: true,
      data: { wordCount: 3 },
    },
  ],
  validate: (p) => rangeProblem(p.minWords, p.maxWords, "maxWords"),
  run({ text }, { minWords, maxWords, not }) {
    const wordCount = countWords(text);
    const { verdict, explanation } = checkBounds(wordCount, "words", minWords, maxWords, not);
    return {
      verdict,
      data: { wordCount, minWords, maxWords: maxWords ?? null, not, verdict, explanation, textExcerpt: textExcerpt(text) },
    };
  },
});
