/**
 * The part of JSON Schema the console's forms understand, and a validator for it, so a form is
 * checked before it is sent. The gateway validates again (fully) and its error path is shown at
 * the field it names.
 */

/** A JSON Schema, as the API publishes it. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  const?: unknown;
}

/** A field path as the gateway writes it: `checks[0].parameters.rule`. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

/** The schema's type, when it names one (the first that is not null). */
export function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null");
  if (schema.type) return schema.type;
  if (schema.properties) return "object";
  if (schema.enum?.every((v) => typeof v === "string")) return "string";
  return undefined;
}

/** The alternatives of an anyOf/oneOf, without the `null` one (an absent value stands for it). */
export function variants(schema: Schema): Schema[] | undefined {
  const list = schema.anyOf ?? schema.oneOf;
  return list?.filter((s) => s.type !== "null");
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "null":
      return value === null;
    default:
      return typeof value === type;
  }
}

/** Problems with `value` against `schema`, by field path (the first problem of each field). */
export function validate(
  schema: Schema,
  value: unknown,
  path = "",
  problems: Record<string, string> = {},
): Record<string, string> {
  const one = (message: string) => {
    problems[path] ??= message;
    return problems;
  };
  if (value === undefined) return problems;
  const alternatives = variants(schema);
  if (alternatives) {
    if (value === null && (schema.anyOf ?? schema.oneOf)?.some((s) => s.type === "null")) return problems;
    const fits = alternatives.some((alternative) => Object.keys(validate(alternative, value, path, {})).length === 0);
    return fits ? problems : one("does not have any of the allowed forms");
  }
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length && !types.some((t) => matchesType(value, t))) return one(`must be ${types.join(" or ")}`);
  if (schema.const !== undefined && value !== schema.const) return one(`must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value))
    return one(`must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) return one(`must be >= ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) return one(`must be <= ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      return one(`must be > ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
      return one(`must be < ${schema.exclusiveMaximum}`);
  }
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      return one(`must have at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      return one(`must have at most ${schema.maxLength} characters`);
    if (schema.pattern !== undefined) {
      try {
        if (!new RegExp(schema.pattern, "u").test(value)) return one(`must match ${schema.pattern}`);
      } catch {
        // A pattern the browser cannot read is left to the gateway.
      }
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      return one(`must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return one(`must have at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, index) => validate(schema.items as Schema, item, joinPath(path, index), problems));
  }
  if (matchesType(value, "object")) {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (record[name] === undefined) problems[joinPath(path, name)] ??= "is required";
    }
    for (const [name, item] of Object.entries(record)) {
      const property = schema.properties?.[name];
      if (property) validate(property, item, joinPath(path, name), problems);
      else if (schema.additionalProperties === false) problems[joinPath(path, name)] ??= "is not a known field";
      else if (typeof schema.additionalProperties === "object")
        validate(schema.additionalProperties, item, joinPath(path, name), problems);
    }
  }
  return problems;
}
