import { defineCheck, textExcerpt } from "../../../core/index.js";
import { type ParsedJson, parsedJson, reportableJson } from "../shared/json-extract.js";
import { compileSchema, type ValidationError, validationErrors } from "../shared/json-schema-compiler.js";

interface Parameters {
  schema: Record<string, unknown> | boolean;
  not: boolean;
}

const MAX_ERRORS = 50;

function where(found: ParsedJson): string {
  return found.source === "fenced" ? "in a fenced code block" : "in the text";
}

/**
 * Finds JSON in the text and validates it against a JSON Schema with ajv. The first candidate that
 * validates passes the check; when none does, the first candidate that parsed is reported with its
 * errors. See json-extract.ts for how candidates are found and json-schema-compiler.ts for drafts.
 */
export default defineCheck<Parameters>({
  id: "jsonSchema",
  name: "JSON schema",
  description: "Checks that the text holds JSON (in a fenced block or bare) that validates against a JSON Schema.",
  sides: ["input", "output"],
  // On a held stream, a JSON document is only whole at the end.
  streamScope: "whole",
  parameters: {
    type: "object",
    properties: {
      schema: {
        type: ["object", "boolean"],
        description:
          "The JSON Schema. Draft 2020-12 unless its `$schema` names 2019-09, draft-07 or draft-06. Checked when the guardrail is loaded.",
      },
      not: { type: "boolean", default: false, description: "Invert the verdict: pass when no JSON in the text validates." },
    },
    required: ["schema"],
    additionalProperties: false,
  },
  data: {
    matchedJson: {
      type: "any",
      echoesText: true,
      description:
        "The JSON that validated, else the first that parsed; null when none parsed, or when it is longer than 16 KB or nested deeper than 64 levels.",
    },
    jsonFound: { type: "boolean", description: "Whether any JSON value was found in the text." },
    source: { type: "string | null", description: '"fenced" (a code block) or "text" (the balanced scan); null when none.' },
    location: { type: "object | null", description: "start and end (UTF-16 offsets in the text) of the reported JSON." },
    validationErrors: {
      type: "array",
      description: "Errors of the reported JSON: path (a JSON pointer into it) and message; at most 50; empty when it validated.",
    },
    validationErrorCount: { type: "number", description: "All errors of the reported JSON, including those not listed." },
    candidates: { type: "number", description: "JSON values parsed and validated before the check decided." },
    not: { type: "boolean", description: "Whether the verdict was inverted." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "Why the check passed or failed." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: {
        schema: {
          type: "object",
          properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
          required: ["name"],
        },
      },
      text: 'Here you go:\n```json\n{"name": "Ada", "age": 36}\n```',
      description: "The reply must carry a JSON object with a name.",
      verdict: true,
      data: { matchedJson: { name: "Ada", age: 36 } },
    },
  ],
  notes: [
    "**Finding the JSON.** Candidates are, in order: the contents of fenced code blocks (backtick or tilde fences) tagged `json` or untagged, then JSON objects and arrays found by a balanced scan of the whole text — the outermost well-formed ones, and well-formed ones nested inside text that is not JSON (prose in braces, an unclosed bracket). Top-level arrays are found, nested objects are not cut short, and strings are read as JSON reads them, so braces inside strings do not confuse the scan. The scan is one pass over the text, and no text is parsed twice, so the cost is linear in the text.",
    "",
    "**Deciding.** The first candidate that validates passes the check. When none does, the first candidate that parsed is reported with all its errors (`validationErrors`, each a JSON pointer `path` and a `message`). When no JSON is found at all the check fails (it passes with `not`).",
    "",
    "**Schemas.** Validation is ajv with ajv-formats, all errors collected. Draft 2020-12 is the default; `$schema` selects 2019-09, draft-07 or draft-06 (http or https, with or without the trailing `#`). Keywords ajv does not know are ignored. `pattern` and `patternProperties` run on RE2, so lookaround and backreferences are not available. An invalid schema, an unknown `$schema`, an unresolvable `$ref` or a pattern RE2 cannot compile is a configuration error when the guardrail is loaded. Schemas are compiled once and cached (500 schemas) by a hash of their canonical JSON. `uniqueItems` on arrays of objects compares every pair of items, so its cost grows with the square of the array's length.",
  ].join("\n"),
  validate({ schema }) {
    try {
      compileSchema(schema);
      return undefined;
    } catch (error) {
      return { parameter: "schema", message: `is not a valid JSON Schema: ${(error as Error).message}` };
    }
  },
  run({ text }, { schema, not }) {
    const validate = compileSchema(schema);
    let matched: ParsedJson | undefined;
    let first: ParsedJson | undefined;
    let firstErrors: ValidationError[] = [];
    let candidates = 0;
    for (const found of parsedJson(text)) {
      candidates++;
      if (validate(found.value)) {
        matched = found;
        break;
      }
      if (!first) {
        first = found;
        firstErrors = validationErrors(validate.errors);
      }
    }
    const reported = matched ?? first;
    const valid = matched !== undefined;
    const verdict = not ? !valid : valid;
    const errors = matched ? [] : firstErrors;
    let found: string;
    if (matched) found = `JSON ${where(matched)} matches the schema`;
    else if (first) {
      const head = errors[0];
      found = `No JSON in the text matches the schema; the first found (${where(first)}) has ${errors.length} error${errors.length === 1 ? "" : "s"}${head ? `, first at "${head.path}": ${head.message}` : ""}`;
    } else found = "No JSON was found in the text";
    const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
    return {
      verdict,
      data: {
        matchedJson: reported ? reportableJson(reported) : null,
        jsonFound: reported !== undefined,
        source: reported?.source ?? null,
        location: reported ? { start: reported.start, end: reported.end } : null,
        validationErrors: errors.slice(0, MAX_ERRORS),
        validationErrorCount: errors.length,
        candidates,
        not,
        verdict,
        explanation: `${found}${inverted}.`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
