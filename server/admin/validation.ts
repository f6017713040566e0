/**
 * Request validation for the admin API: bodies are validated strictly (an unknown field is a 400,
 * never silently dropped; defaults applied), query strings with type coercion (they arrive as
 * strings). Errors name the field: `body.budget.limit: must be number`.
 */
import Ajv, { type ErrorObject } from "ajv";
import addFormats from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import { joinPath, joinPointer } from "../../core/internal.js";
import { invalid, type ManagementError } from "../store/errors.js";

function newAjv(coerce: boolean): Ajv.default {
  const ajv = new Ajv.default({
    allErrors: false,
    useDefaults: true,
    removeAdditional: false,
    coerceTypes: coerce ? "array" : false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

const bodies = newAjv(false);
const queries = newAjv(true);

/** The validator compiler of the admin routes. */
export const adminValidatorCompiler: FastifySchemaCompiler<Record<string, unknown>> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodies : queries;
  const validate = ajv.compile(schema);
  return (data: unknown) => (validate(data) ? { value: data } : { error: describe(validate.errors, httpPart ?? "body") });
};

function describe(errors: ErrorObject[] | null | undefined, part: string): ManagementError {
  const base = part === "querystring" ? "query" : part;
  const error = errors?.[0];
  if (!error) return invalid(`${base}: is not valid`);
  const at = joinPointer(base, error.instancePath);
  switch (error.keyword) {
    case "required":
      return invalid(`${joinPath(at, String(error.params.missingProperty))}: is required`);
    case "additionalProperties":
      return invalid(`${joinPath(at, String(error.params.additionalProperty))}: is not a known field`);
    case "enum":
      return invalid(
        `${at}: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      );
    case "anyOf":
      return invalid(`${at}: does not have any of the allowed forms`);
    default:
      return invalid(`${at}: ${error.message ?? "is not valid"}`);
  }
}
