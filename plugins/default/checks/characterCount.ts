import { defineCheck, textExcerpt } from "../../../core/index.js";
import { checkBounds, rangeProblem } from "../shared/count-bounds.js";
import { countGraphemes } from "../shared/segments.js";

/**
 * Characters are grapheme clusters, what a reader sees as one character: "é" written with a
 * combining accent is one, a family emoji joined by zero-width joiners is one. UTF-16 units, which
 * count an emoji as two or more, are not used.
 */
export default defineCheck<{ minCharacters: number; maxCharacters?: number; not: boolean }>({
  id: "characterCount",
  name: "Character count",
  description: "Checks that the number of characters (grapheme clusters) in the text is within a range.",
  sides: ["input", "output"],
  // On a held stream, a count of the whole answer.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      minCharacters: { type: "integer", minimum: 0, default: 0, description: "Minimum number of characters (inclusive)." },
      maxCharacters: {
        type: "integer",
        minimum: 0,
        description: "Maximum number of characters (inclusive); no maximum when absent.",
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when the count is outside the range." },
    },
    additionalProperties: false,
  },
  data: {
    characterCount: { type: "number", description: "Characters (grapheme clusters) counted in the text." },
    minCharacters: { type: "number", description: "The minimum applied." },
    maxCharacters: { type: "number | null", description: "The maximum applied, null when none." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { maxCharacters: 280 },
      text: "Short and sweet.",
      description: "At most 280 characters.",
      verdict: true,
      data: { characterCount: 16 },
    },
  ],
  validate: (p) => rangeProblem(p.minCharacters, p.maxCharacters, "maxCharacters"),
  run({ text }, { minCharacters, maxCharacters, not }) {
    const characterCount = countGraphemes(text);
    const { verdict, explanation } = checkBounds(characterCount, "characters", minCharacters, maxCharacters, not);
    return {
      verdict,
      data: {
        characterCount,
        minCharacters,
        maxCharacters: maxCharacters ?? null,
        not,
        verdict,
        explanation,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
