/**
 * The TypeScript type of a shape, derived from its JSON Schema with json-schema-to-ts, and the small
 * helpers the schemas are written with. The schema is the one source of a shape: its validators
 * (server/schema.ts, the admin API's) and its type read the same object, so the two cannot
 * disagree. A schema written `as const` keeps the literal types the derivation reads. This module
 * imports nothing at run time, so the console's build can read the server's types through it.
 */
import type { FromSchema, JSONSchema } from "json-schema-to-ts";

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
