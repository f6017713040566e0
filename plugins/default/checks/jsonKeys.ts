import { defineCheck, textExcerpt } from "../../../core/index.js";
import { type ParsedJson, parsedJson, reportableJson } from "../shared/json-extract.js";
import { isObject } from "../../../core/internal.js";

type Operator = "any" | "all" | "none";

interface Parameters {
  keys: string[];
  operator: Operator;
}

function satisfies(operator: Operator, present: number, total: number): boolean {
  if (operator === "any") return present > 0;
  if (operator === "all") return present === total;
  return present === 0;
}

const RULE: Record<Operator, string> = {
  any: "at least one of the keys",
  all: "all of the keys",
  none: "none of the keys",
};

/**
 * Finds JSON objects in the text (as jsonSchema does) and checks their top-level keys. The first
 * object that satisfies the operator passes the check; when none does, the first object found is
 * reported.
 */
export default defineCheck<Parameters>({
  id: "jsonKeys",
  name: "JSON keys",
  description: "Checks that a JSON object in the text has any, all or none of the given top-level keys.",
  sides: ["input", "output"],
  // On a held stream, a JSON document is only whole at the end.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      keys: { type: "array", items: { type: "string" }, minItems: 1, description: "The top-level keys to look for." },
      operator: {
        type: "string",
        enum: ["any", "all", "none"],
        default: "any",
        description: "any: an object has at least one of the keys; all: every key; none: none of them.",
      },
    },
    required: ["keys"],
    additionalProperties: false,
  },
  data: {
    matchedJson: {
      type: "object | null",
      echoesText: true,
      description:
        "The object that satisfied the operator, else the first object found; null when none, or when it is longer than 16 KB or nested deeper than 64 levels.",
    },
    jsonFound: { type: "boolean", description: "Whether a JSON object was found in the text." },
    presentKeys: { type: "string[]", description: "Configured keys the reported object has." },
    missingKeys: { type: "string[]", description: "Configured keys it lacks." },
    operator: { type: "string", description: "The operator applied." },
    source: { type: "string | null", description: '"fenced" (a code block) or "text" (the balanced scan); null when none.' },
    location: { type: "object | null", description: "start and end (UTF-16 offsets in the text) of the reported object." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: { keys: ["answer", "sources"], operator: "all" },
      text: '{"answer": "42", "sources": ["guide"]}',
      description: "The reply must be an object with both keys.",
      verdict: true,
      data: { missingKeys: [] },
    },
  ],
  notes: [
    "JSON is found exactly as `jsonSchema` finds it: fenced blocks tagged `json` or untagged first, then a linear balanced scan of the text for objects (arrays are found but have no keys, so they are skipped).",
    "Only top-level keys of an object count; a key with a `null` value is present.",
    "",
    "The first object that satisfies the operator passes the check, so with `none` an object lacking every key passes even when another object has one (as in the peer gateway). When no object satisfies it, the first object found is reported; when no object is found, the check fails.",
  ].join("\n"),
  run({ text }, { keys, operator }) {
    let matched: { found: ParsedJson; present: string[] } | undefined;
    let first: { found: ParsedJson; present: string[] } | undefined;
    for (const found of parsedJson(text)) {
      if (!isObject(found.value)) continue;
      const object = found.value;
      const present = keys.filter((key) => Object.hasOwn(object, key));
      if (satisfies(operator, present.length, keys.length)) {
        matched = { found, present };
        break;
      }
      first ??= { found, present };
    }
    const reported = matched ?? first;
    const verdict = matched !== undefined;
    const presentKeys = reported?.present ?? [];
    const missingKeys = keys.filter((key) => !presentKeys.includes(key));
    const explanation = !reported
      ? "No JSON object was found in the text."
      : verdict
        ? `A JSON object has ${RULE[operator]} (present: ${presentKeys.join(", ") || "none"}).`
        : `No JSON object has ${RULE[operator]}; the first found has ${presentKeys.length ? presentKeys.join(", ") : "none of them"}${missingKeys.length ? ` and lacks ${missingKeys.join(", ")}` : ""}.`;
    return {
      verdict,
      data: {
        matchedJson: reported ? reportableJson(reported.found) : null,
        jsonFound: reported !== undefined,
        presentKeys,
        missingKeys,
        operator,
        source: reported?.found.source ?? null,
        location: reported ? { start: reported.found.start, end: reported.found.end } : null,
        verdict,
        explanation,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
