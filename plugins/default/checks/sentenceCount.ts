import { defineCheck, textExcerpt } from "../../../core/index.js";
import { checkBounds, rangeProblem } from "../shared/count-bounds.js";
import { countSentences } from "../shared/segments.js";

/**
 * Sentences are Unicode sentence segments (UAX #29) that hold a letter or digit: "3.14", "e.g."
 * and "Hi... there" do not end a sentence, "。" does, and a run of punctuation is no sentence.
 */
export default defineCheck<{ minSentences: number; maxSentences?: number; not: boolean }>({
  id: "sentenceCount",
  name: "Sentence count",
  description: "Checks that the number of sentences in the text is within a range.",
  sides: ["input", "output"],
  // On a held stream, a count of the whole answer.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      minSentences: { type: "integer", minimum: 0, default: 0, description: "Minimum number of sentences (inclusive)." },
      maxSentences: {
        type: "integer",
        minimum: 0,
        description: "Maximum number of sentences (inclusive); no maximum when absent.",
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the count is outside the range." },
    },
    additionalProperties: false,
  },
  data: {
    sentenceCount: { type: "number", description: "Sentences counted in the text." },
    minCount: { type: "number", description: "The minimum applied." },
    maxCount: { type: "number | null", description: "The maximum applied, null when none." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { minSentences: 1, maxSentences: 3 },
      text: "One. Two.",
      description: "Up to three sentences.",
      verdict: true,
      data: { sentenceCount: 2 },
    },
  ],
  validate: (p) => rangeProblem(p.minSentences, p.maxSentences, "maxSentences"),
  run({ text }, { minSentences, maxSentences, not }) {
    const sentenceCount = countSentences(text);
    const { verdict, explanation } = checkBounds(sentenceCount, "sentences", minSentences, maxSentences, not);
    return {
      verdict,
      data: {
        sentenceCount,
        minCount: minSentences,
        maxCount: maxSentences ?? null,
        not,
        verdict,
        explanation,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
