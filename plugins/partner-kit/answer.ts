/**
 * Reading a partner's answer: the fields a verdict depends on must be there with the right type,
 * or the check errors naming the service and the missing field. A verdict is never guessed from
 * an answer that lacks what decides it.
 */
import type { PartnerService } from "./call.js";
import { PartnerError } from "./errors.js";

/** JSON types a field may be required to have. */
export type FieldType = "boolean" | "number" | "string" | "array" | "object";

type FieldValue<T extends FieldType> = T extends "boolean"
  ? boolean
  : T extends "number"
    ? number
    : T extends "string"
      ? string
      : T extends "array"
        ? unknown[]
        : Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** A path as a reader writes it: `results[0].flagged`. */
function describePath(path: ReadonlyArray<string | number>): string {
  return path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("") || "(the answer)";
}

function lookup(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

function matches(value: unknown, type: FieldType): boolean {
  if (type === "array") return Array.isArray(value);
  if (type === "object") return typeof value === "object" && value !== null && !Array.isArray(value);
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === type;
}

/** The field at `path` of a partner's answer, of `type`; a PartnerError when it is missing or of another type. */
export function requiredField<T extends FieldType>(
  service: PartnerService,
  root: unknown,
  path: ReadonlyArray<string | number>,
  type: T,
): FieldValue<T> {
  const value = lookup(root, path);
  if (!matches(value, type)) {
    const found = value === undefined ? "has no" : `has a ${typeOf(value)} for`;
    throw new PartnerError(
      "partner_answer_invalid",
      `${service.name}'s answer ${found} \`${describePath(path)}\` (expected ${type})`,
    );
  }
  return value as FieldValue<T>;
}

/** The field at `path`, or undefined when absent or null; a PartnerError when present with another type. */
export function optionalField<T extends FieldType>(
  service: PartnerService,
  root: unknown,
  path: ReadonlyArray<string | number>,
  type: T,
): FieldValue<T> | undefined {
  const value = lookup(root, path);
  if (value === undefined || value === null) return undefined;
  return requiredField(service, root, path, type);
}
