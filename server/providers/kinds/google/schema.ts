/**
 * A JSON Schema (a tool's `parameters`, a `json_schema` response format) as Gemini's `Schema`:
 * the subset of the OpenAPI 3.0 schema object the Gemini API and Vertex AI document (type,
 * format, title, description, nullable, enum, items, min/maxItems, properties, required,
 * min/maxProperties, min/maxLength, pattern, minimum, maximum, anyOf, propertyOrdering, default,
 * example). Keys that only annotate (`$schema`, `additionalProperties: false`, `examples`, …) are
 * dropped, since leaving them out changes nothing Gemini would enforce; a key that constrains
 * (`$ref`, `oneOf`, `const`, `additionalProperties` as a schema, …) is refused, naming it, since
 * dropping it would silently loosen the schema.
 */
import { isObject } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";

/** Keys Gemini's Schema takes as they are (values are schemas only under the keys handled below). */
const PLAIN = new Set([
  "format",
  "title",
  "description",
  "nullable",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "required",
  "propertyOrdering",
  "default",
  "example",
]);

/** Keys that say nothing Gemini would enforce: left out. */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly", "strict"]);

const TYPES: Readonly<Record<string, string>> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
};

function refuse(where: string, problem: string): never {
  throw new GatewayError(
    "unsupported_parameter",
    `${where}: ${problem}; Gemini takes the OpenAPI subset of JSON Schema (type, properties, items, enum, anyOf, required, …)`,
  );
}

/** `schema` in Gemini's form; `where` names it in errors (`tools[0].function.parameters`). */
export function geminiSchema(schema: unknown, where: string): Json {
  if (!isObject(schema)) refuse(where, "a schema must be an object");
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    const at = `${where}.${key}`;
    if (ANNOTATIONS.has(key)) continue;
    if (PLAIN.has(key)) out[key] = value;
    else if (key === "type") Object.assign(out, typeOf(value, at));
    else if (key === "enum") out.enum = enumOf(value, at);
    else if (key === "items") out.items = geminiSchema(value, at);
    else if (key === "anyOf") {
      if (!Array.isArray(value)) refuse(at, "must be an array of schemas");
      out.anyOf = value.map((item, i) => geminiSchema(item, `${at}[${i}]`));
    } else if (key === "properties") {
      if (!isObject(value)) refuse(at, "must be an object of schemas");
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, geminiSchema(sub, `${at}.${name}`)]));
    } else if (key === "additionalProperties") {
      // `false` is what strict OpenAI schemas carry; Gemini produces only the declared properties anyway.
      if (value !== false) refuse(at, "Gemini cannot allow properties beyond the declared ones");
    } else refuse(at, `Gemini's schema has no "${key}"`);
  }
  return out;
}

/** A JSON Schema type; `["string", "null"]` is a nullable string. */
function typeOf(value: unknown, where: string): Json {
  const types = Array.isArray(value) ? value : [value];
  const nullable = types.includes("null");
  const rest = types.filter((t) => t !== "null");
  if (rest.length !== 1 || typeof rest[0] !== "string" || !TYPES[rest[0]]) {
    refuse(where, `type ${JSON.stringify(value)} is not one type Gemini knows (or one with "null")`);
  }
  return nullable ? { type: TYPES[rest[0]], nullable: true } : { type: TYPES[rest[0]] };
}

function enumOf(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) refuse(where, "Gemini takes enums of strings only");
  return value as string[];
}
