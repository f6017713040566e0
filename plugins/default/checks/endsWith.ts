import { defineCheck, textExcerpt } from "../../../core/index.js";
import { foldCase } from "../shared/word-search.js";

interface Parameters {
  suffix: string;
  caseSensitive: boolean;
  not: boolean;
}

/** Passes when the text (trailing whitespace ignored) ends with the suffix, or with the suffix and a period. */
export default defineCheck<Parameters>({
  id: "endsWith",
  name: "Ends with",
  description: "Checks whether the text ends with a given suffix (trailing whitespace ignored, a final period accepted).",
  sides: ["input", "output"],
  // On a held stream, only the whole answer has an end.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      suffix: { type: "string", minLength: 1, description: "The text must end with this (optionally followed by a period)." },
      caseSensitive: { type: "boolean", default: true, description: "Match letter case exactly." },
      not: {
        type: "boolean",
        default: false,
        description: "Invert the verdict: pass when the text does not end with the suffix.",
      },
    },
    required: ["suffix"],
    additionalProperties: false,
  },
  data: {
    suffix: { type: "string", description: "The suffix applied." },
    caseSensitive: { type: "boolean", description: "Whether case was matched exactly." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { suffix: "Thank you" },
      text: "We will get back to you. Thank you.",
      description: "A fixed sign-off.",
      verdict: true,
    },
  ],
  notes:
    "Trailing whitespace (any Unicode white space, line breaks included) is ignored, and a period after the suffix is accepted, as the peer gateway does: `Thank you.` ends with `Thank you`. Text and suffix are compared in Unicode NFC; with `caseSensitive: false` both are case-folded.",
  run({ text }, { suffix, caseSensitive, not }) {
    const fold = (s: string) => (caseSensitive ? s.normalize("NFC") : foldCase(s.normalize("NFC")));
    const body = fold(text.trimEnd());
    const end = fold(suffix);
    const ends = body.endsWith(end) || body.endsWith(`${end}.`);
    const verdict = not ? !ends : ends;
    const found = ends ? "The text ends with the suffix" : "The text does not end with the suffix";
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    return {
      verdict,
      data: { suffix, caseSensitive, not, verdict, explanation: `${found}${inverted}.`, textExcerpt: textExcerpt(text) },
    };
  },
});
