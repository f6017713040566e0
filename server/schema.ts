/**
 * JSON Schema validation for the gateway's own documents (the config file, the gateway keys of a
 * config, hook route bodies): compiled once with ajv, the first error turned into a ConfigError
 * naming the path.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { parameterError } from "../core/internal.js";

const ajv = new Ajv2020({ allErrors: false, strict: true, strictTypes: false, allowUnionTypes: true });

/** A compiled validator: throws a ConfigError naming the path under `base` when `value` is not a T. */
export type Validator<T> = (value: unknown, base: string) => asserts value is T;

/** Compiles a schema once. */
export function compileValidator<T>(schema: Record<string, unknown>): Validator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value: unknown, base: string): asserts value is T => {
    if (!validate(value)) throw parameterError(validate.errors, base, schema, "key");
  };
}
