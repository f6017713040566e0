/**
 * Compiling users' JSON Schemas with ajv: draft 2020-12 unless the schema's `$schema` names
 * 2019-09, draft-07 or draft-06; formats from ajv-formats; every `pattern` compiled by RE2 (a
 * schema is user input, and JavaScript's RegExp would let one stall the service). Validators are
 * compiled once and kept in a bounded cache keyed by a hash of the schema's canonical JSON, so the
 * same schema written in two configs (or with its keys in another order) compiles once.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { LRUCache } from "lru-cache";
import stringify from "safe-stable-stringify";
import { compileRegex } from "../../../core/index.js";

/** The drafts this compiler knows, by the `$schema` URI that names them. */
export type Draft = "2020-12" | "2019-09" | "draft-07" | "draft-06";

// Keyed without scheme and trailing "#": schemas in the wild write both http and https.
const DRAFTS: Record<string, Draft> = {
  "json-schema.org/draft/2020-12/schema": "2020-12",
  "json-schema.org/draft/2019-09/schema": "2019-09",
  "json-schema.org/draft-07/schema": "draft-07",
  "json-schema.org/draft-06/schema": "draft-06",
};

const require = createRequire(import.meta.url);

/** ajv's hook for compiling `pattern` and `patternProperties`: RE2, from the shared cache. */
const re2Engine = Object.assign((pattern: string, flags: string) => compileRegex(pattern, flags), {
  code: "guardgate.compileRegex",
});

const OPTIONS: Options = {
  allErrors: true,
  // Users' schemas carry annotations ajv does not know (examples, titles in odd places): ignore
  // them rather than refuse the schema.
  strict: false,
  validateFormats: true,
  code: { regExp: re2Engine },
};

type Compiler = Ajv | Ajv2019 | Ajv2020;
const compilers = new Map<Draft, Compiler>();

function compilerFor(draft: Draft): Compiler {
  let compiler = compilers.get(draft);
  if (compiler) return compiler;
  if (draft === "2020-12") compiler = new Ajv2020(OPTIONS);
  else if (draft === "2019-09") compiler = new Ajv2019(OPTIONS);
  else {
    compiler = new Ajv(OPTIONS);
    if (draft === "draft-06") compiler.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json"));
  }
  addFormats.default(compiler);
  compilers.set(draft, compiler);
  return compiler;
}

/** The draft a schema asks for; throws when `$schema` names one this compiler does not know. */
export function draftOf(schema: unknown): Draft {
  if (typeof schema !== "object" || schema === null || !("$schema" in schema)) return "2020-12";
  const uri = (schema as { $schema: unknown }).$schema;
  if (typeof uri !== "string") throw new Error("$schema must be a string");
  const draft = DRAFTS[uri.replace(/^https?:\/\//, "").replace(/#$/, "")];
  if (!draft) {
    throw new Error(`$schema "${uri}" is not supported; use draft 2020-12 (the default), 2019-09, draft-07 or draft-06`);
  }
  return draft;
}

const cache = new LRUCache<string, ValidateFunction>({ max: 500 });

/** A canonical key for a schema: key order does not matter. */
function schemaKey(schema: unknown): string {
  return createHash("sha256")
    .update(stringify(schema) ?? "")
    .digest("hex");
}

/**
 * The validator for a schema, compiled on first use. Throws an Error whose message says what is
 * wrong when the schema is not valid (unknown draft, a keyword with a bad value, an unresolvable
 * `$ref`, a pattern RE2 cannot compile).
 */
export function compileSchema(schema: unknown): ValidateFunction {
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw new Error("a JSON Schema must be an object or a boolean");
  }
  const key = schemaKey(schema);
  const cached = cache.get(key);
  if (cached) return cached;
  const compiler = compilerFor(draftOf(schema));
  // ajv keeps what it compiled by object and by $id; the copy it sees is dropped from ajv right
  // after, so the bounded cache here is the only one, and two schemas may share an $id.
  const copy = structuredClone(schema) as Record<string, unknown> | boolean;
  let validate: ValidateFunction;
  try {
    validate = compiler.compile(copy);
  } finally {
    if (typeof copy === "object") compiler.removeSchema(copy);
  }
  cache.set(key, validate);
  return validate;
}

/** One validation error as results report it: a JSON pointer into the value and a message. */
export interface ValidationError {
  path: string;
  message: string;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** ajv's errors as `{path, message}`; an unexpected property is pointed at itself. */
export function validationErrors(errors: ErrorObject[] | null | undefined): ValidationError[] {
  return (errors ?? []).map((error) => {
    if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
      const name = String(error.params.additionalProperty ?? error.params.unevaluatedProperty);
      return {
        path: `${error.instancePath}/${escapePointer(name)}`,
        message: "must not be present (no such property is allowed)",
      };
    }
    return { path: error.instancePath, message: error.message ?? `fails the "${error.keyword}" keyword` };
  });
}
