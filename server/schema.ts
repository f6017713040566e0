/**
 * JSON Schema for the gateway's own documents (the config file, the gateway keys of a config, hook
 * route bodies, admin API bodies and records): the schema is the one source of a shape. Validation
 * compiles it once with ajv, the first error turned into a ConfigError naming the path; the
 * TypeScript type of the shape is derived from the same schema (`SchemaType`, json-schema-to-ts),
 * so the two cannot disagree. A schema written `as const` keeps the literal types the derivation
 * reads.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import { parameterError } from "../core/internal.js";

export type { JSONSchema };

/**
 * The type of a value a schema admits once validated. A field with a `default` counts as present:
 * the validators that read these schemas apply defaults (the admin API's), or the type describes a
 * stored record, where the store always writes the field.
 */
export type SchemaType<S extends JSONSchema> = FromSchema<S>;

/** The type of a value a schema admits as written: a field with a `default` may be absent. */
export type WrittenType<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>;

/** A schema that also admits null. */
export function nullable<const S>(schema: S) {
  return { anyOf: [schema, { type: "null" }] } as const;
}

/** An object schema whose listed fields are all present, and no others. */
export function closedRecord<const P extends Record<string, unknown>>(properties: P, description?: string) {
  return {
    type: "object",
    ...(description !== undefined && { description }),
    properties,
    required: Object.keys(properties) as Array<keyof P & string>,
    additionalProperties: false,
  } as const;
}

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
