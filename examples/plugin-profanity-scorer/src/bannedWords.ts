/**
 * An example check: fails when the text holds one of the listed words. Replace it with your own;
 * keep the shape: metadata as data (the gateway validates parameters against `parameters` when
 * a config is loaded, with defaults applied), and one `run` function.
 */
import { defineCheck, textExcerpt } from "guardgate";

export interface BannedWordsParameters {
  words: string[];
  caseSensitive: boolean;
}

// Words are runs of letters, digits and apostrophes: a linear scan, safe on long texts.
const WORD = /[\p{L}\p{N}\p{M}'’]+/gu;

export default defineCheck<BannedWordsParameters>({
  id: "bannedWords",
  name: "Banned words",
  description: "Fails when the text contains one of the listed words (whole words only).",
  sides: ["input", "output"],
  parameters: {
    type: "object",
    properties: {
      words: {
        type: "array",
        items: { type: "string", minLength: 1 },
        minItems: 1,
        description: "The words that fail the check.",
      },
      caseSensitive: { type: "boolean", default: false, description: "Match the words' case exactly." },
    },
    required: ["words"],
    additionalProperties: false,
  },
  data: {
    found: { type: "string[]", description: "The banned words found, each once, in the order they first appear." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [{ parameters: { words: ["confidential", "internal"] }, text: "This is internal only.", description: "Fails." }],
  run({ text }, { words, caseSensitive }) {
    const fold = (word: string) => (caseSensitive ? word : word.toLocaleLowerCase());
    const banned = new Set(words.map(fold));
    const found = new Set<string>();
    for (const [word] of text.matchAll(WORD)) if (banned.has(fold(word))) found.add(fold(word));
    const verdict = found.size === 0;
    return {
      verdict,
      data: {
        found: [...found],
        explanation: verdict ? "No banned word found." : `Found banned words: ${[...found].join(", ")}.`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
