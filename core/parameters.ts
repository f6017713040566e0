/**
 * Parameter validation: each check's JSON Schema compiled once with ajv, defaults applied, and
 * errors turned into ConfigErrors that name the path of the offending parameter.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { nearestKey } from "./config/keys.js";
import { joinPath, joinPointer } from "./config/path.js";
import { ConfigError } from "./errors.js";
import type { JsonSchema } from "./plugin-api.js";

let ajv: Ajv2020 | undefined;

function parameterAjv(): Ajv2020 {
  if (!ajv) {
    ajv = new Ajv2020({ useDefaults: true, allErrors: false, strict: true, strictTypes: false, allowUnionTypes: true });
    addFormats.default(ajv);
  }
  return ajv;
}

/** Compiles a parameter schema; throws the compiler's message when the schema is not valid. */
export function compileParameterSchema(schema: JsonSchema): ValidateFunction {
  return parameterAjv().compile(schema);
}

/** The `properties` of the subschema an ajv error's schema path (`#/properties/a/additionalProperties`) points into. */
function propertiesAt(schema: JsonSchema, schemaPath: string): Record<string, unknown> {
  let node: unknown = schema;
  for (const raw of schemaPath.split("/").slice(1, -1)) {
    if (typeof node !== "object" || node === null) return {};
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  const properties = (node as { properties?: unknown } | undefined)?.properties;
  return typeof properties === "object" && properties !== null ? (properties as Record<string, unknown>) : {};
}

/**
 * Describes the first ajv error as `path: problem`, the path naming the offending key. `noun`
 * names what the schema's properties are ("parameter", "key") in the message of an unknown one.
 */
export function parameterError(
  errors: ErrorObject[] | null | undefined,
  basePath: string,
  schema: JsonSchema,
  noun = "parameter",
): ConfigError {
  const error = errors?.[0];
  if (!error) return new ConfigError(basePath, "parameters are not valid");
  const at = joinPointer(basePath, error.instancePath);
  switch (error.keyword) {
    case "required":
      return new ConfigError(joinPath(at, String(error.params.missingProperty)), "is required");
    case "additionalProperties": {
      const name = String(error.params.additionalProperty);
      const near = nearestKey(name, Object.keys(propertiesAt(schema, error.schemaPath)));
      if (near) return new ConfigError(joinPath(at, name), `is not a known ${noun}; did you mean ${near}?`);
      // The schema's own properties are the ones to list only when the error is at its top level.
      const known = error.instancePath ? [] : Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
      const hint = known.length ? `; known ${noun}s: ${known.join(", ")}` : "";
      return new ConfigError(joinPath(at, name), `is not a known ${noun}${hint}`);
    }
    case "enum":
      return new ConfigError(
        at,
        `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      );
    default:
      return new ConfigError(at, error.message ?? "is not valid");
  }
}
