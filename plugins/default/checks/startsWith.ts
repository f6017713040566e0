import { defineCheck, textExcerpt } from "../../../core/index.js";
import { foldCase } from "../shared/word-search.js";

interface Parameters {
  prefix: string;
  caseSensitive: boolean;
  not: boolean;
}

/** Passes when the text (leading whitespace ignored) starts with the prefix. */
export default defineCheck<Parameters>({
  id: "startsWith",
  name: "Starts with",
  description: "Checks whether the text starts with a given prefix (leading whitespace ignored).",
  sides: ["input", "output"],
  // On a held stream, judged on the whole answer, once.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      prefix: { type: "string", minLength: 1, description: "The text must start with this." },
      caseSensitive: { type: "boolean", default: true, description: "Match letter case exactly." },
      not: {
        type: "boolean",
        default: false,
        description: "Invert the verdict: pass when the text does not start with the prefix.",
      },
    },
    required: ["prefix"],
    additionalProperties: false,
  },
  data: {
    prefix: { type: "string", description: "The prefix applied." },
    caseSensitive: { type: "boolean", description: "Whether case was matched exactly." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    { parameters: { prefix: "Answer:" }, text: "Answer: 42", description: "The reply starts with a fixed label.", verdict: true },
  ],
  notes:
    "Leading whitespace (any Unicode white space, line breaks included) is ignored. Text and prefix are compared in Unicode NFC; with `caseSensitive: false` both are case-folded.",
  run({ text }, { prefix, caseSensitive, not }) {
    const fold = (s: string) => (caseSensitive ? s.normalize("NFC") : foldCase(s.normalize("NFC")));
    const starts = fold(text.trimStart()).startsWith(fold(prefix));
    const verdict = not ? !starts : starts;
    const found = starts ? "The text starts with the prefix" : "The text does not start with the prefix";
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    return {
      verdict,
      data: { prefix, caseSensitive, not, verdict, explanation: `${found}${inverted}.`, textExcerpt: textExcerpt(text) },
    };
  },
});
