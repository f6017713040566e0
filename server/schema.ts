/**
 * JSON Schema validation for the gateway's own documents (the config file, the gateway keys of a
 * config, hook route bodies): compiled once with ajv, the first error turned into a ConfigError
 * naming the path.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { joinPath, joinPointer } from "../core/config/path.js";
import { ConfigError } from "../core/errors.js";

const ajv = new Ajv2020({ allErrors: false, strict: true, strictTypes: false, allowUnionTypes: true });

/** A compiled validator: throws a ConfigError naming the path under `base` when `value` is not a T. */
export type Validator<T> = (value: unknown, base: string) => asserts value is T;

/** Compiles a schema once. */
export function compileValidator<T>(schema: Record<string, unknown>): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value: unknown, base: string): asserts value is T => {
    if (!validate(value)) throw schemaError(validate.errors, base);
  };
}

function schemaError(errors: ErrorObject[] | null | undefined, base: string): ConfigError {
  const error = errors?.[0];
  if (!error) return new ConfigError(base, "is not valid");
  const at = joinPointer(base, error.instancePath);
  switch (error.keyword) {
    case "required":
      return new ConfigError(joinPath(at, String(error.params.missingProperty)), "is required");
    case "additionalProperties":
      return new ConfigError(joinPath(at, String(error.params.additionalProperty)), "is not a known key");
    case "enum":
      return new ConfigError(
        at,
        `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      );
    default:
      return new ConfigError(at, error.message ?? "is not valid");
  }
}
