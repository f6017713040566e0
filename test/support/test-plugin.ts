/**
 * A plugin of small, predictable checks for engine tests: transforms that are easy to compose
 * and observe, a check that throws, and one that waits.
 */
import { defineCheck, definePlugin } from "../../index.js";

const redact = defineCheck<{ word: string }>({
  id: "redact",
  description: "Replaces every occurrence of a word with [X].",
  sides: ["input", "output"],
  transforms: true,
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
  run: ({ text }, { word }) => {
    const found = text.includes(word);
    return { verdict: true, data: { found, seen: text }, ...(found && { transformedText: text.split(word).join("[X]") }) };
  },
});

const sees = defineCheck<{ word: string }>({
  id: "sees",
  description: "Passes when the text contains the word; reports the text it saw.",
  sides: ["input", "output"],
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"], additionalProperties: false },
  run: ({ text }, { word }) => ({ verdict: text.includes(word), data: { seen: text } }),
});

const fails = defineCheck({
  id: "fails",
  description: "Always throws.",
  sides: ["input", "output"],
  parameters: { type: "object", properties: {}, additionalProperties: false },
  run: () => {
    throw new RangeError("this check always throws");
  },
});

const wait = defineCheck<{ ms: number }>({
  id: "wait",
  description: "Passes after waiting, unless aborted.",
  sides: ["input", "output"],
  kind: "network",
  parameters: { type: "object", properties: { ms: { type: "integer", default: 50 } }, additionalProperties: false },
  run: ({ signal }, { ms }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ verdict: true }), ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }),
});

const inputOnly = defineCheck({
  id: "inputOnly",
  description: "A check that supports the input side only.",
  sides: ["input"],
  parameters: { type: "object", properties: {}, additionalProperties: false },
  run: () => ({ verdict: true }),
});

export default definePlugin({ id: "test", class: "custom", apiVersion: 1, checks: [redact, sees, fails, wait, inputOnly] });
