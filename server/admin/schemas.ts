/**
 * JSON Schemas of the admin API's answers. They document the API (OpenAPI) and also serialise the
 * answers: a field a schema does not list is never sent, a second guard against a credential
 * slipping into a response.
 */
import { closedRecord as record, nullable } from "../schema-types.js";
import { checkStatsSchema, feedbackSchema, guardrailStatsSchema, logColumnsSchema } from "../store/log-schemas.js";
import * as store from "../store/schemas.js";
import { apiKeySchema, providerSchema, provisioningSchema } from "../store/schemas.js";
import { withFileManaged } from "./file-managed.js";

// The records the store holds, answered as they are (their schemas are the store's types' source).
export { apiKeySchema, organizationSchema, providerSchema, provisioningSchema, workspaceSchema } from "../store/schemas.js";

// The kinds the config file seeds may carry its marks (file-managed.ts).
export const configRecordSchema = withFileManaged(store.configRecordSchema);
export const guardrailRecordSchema = withFileManaged(store.guardrailRecordSchema);
export const integrationSchema = withFileManaged(store.integrationSchema);
export const pluginIntegrationSchema = withFileManaged(store.pluginIntegrationSchema);
export const policyRecordSchema = withFileManaged(store.policyRecordSchema);

type Schema = Record<string, unknown>;

const str = { type: "string" } as const;
const time = { type: "string", format: "date-time" } as const;

export const errorSchema: Schema = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: { code: str, message: str },
      required: ["code", "message"],
    },
  },
  required: ["error"],
};

export const createdApiKeySchema = record(
  { ...apiKeySchema.properties, key: { type: "string", description: "The key itself: shown this once, never again." } },
  "The new key's record and the key itself.",
);

export const provisionedSchema = record({
  provisioning: provisioningSchema,
  provider: nullable(providerSchema),
});

const anyObject = { type: "object", additionalProperties: true } as const;

/** A list answer. */
export function listOf(item: Schema): Schema {
  return record({ data: { type: "array", items: item } });
}

const overview = record({
  guardrails_passed: { type: "integer" },
  guardrails_failed: { type: "integer" },
  checks_passed: { type: "integer" },
  checks_failed: { type: "integer" },
  checks_errored: { type: "integer" },
});

/** One category's verdict of a provider's content filter (server/logs/record.ts, FilterVerdict). */
const filterVerdict = {
  type: "object",
  properties: { filtered: { type: "boolean" }, severity: str, detected: { type: "boolean" } },
  required: ["filtered"],
  additionalProperties: false,
};

const logColumns = {
  ...logColumnsSchema.properties,
  guardrails: overview,
  try_it: { type: "boolean", description: "Sent by the console's Try it, not by an application" },
};

export const logSummarySchema = record(logColumns);

const checkView = {
  type: "object",
  properties: {
    id: str,
    verdict: { type: "boolean" },
    outcome: { type: "string", enum: ["passed", "failed", "errored"] },
    execution_time: { type: "number" },
    error: {},
    data: anyObject,
  },
  required: ["id", "verdict", "outcome", "execution_time", "data"],
  additionalProperties: false,
};

const guardrailViewFields = {
  id: str,
  side: { type: "string", enum: ["input", "output"] },
  verdict: { type: "boolean" },
  async: { type: "boolean" },
  deny: { type: "boolean" },
  transformed: { type: "boolean" },
  execution_time: { type: "number" },
  created_at: str,
  checks_passed: { type: "integer" },
  checks_failed: { type: "integer" },
  checks_errored: { type: "integer" },
  checks: { type: "array", items: checkView },
  feedback: nullable(anyObject),
};

/** A guardrail in the log view; a policy's carries the policy too. */
const guardrailView = {
  ...record(guardrailViewFields),
  properties: {
    ...guardrailViewFields,
    policy: { ...record({ id: str, name: str }), description: "The policy that added this guardrail." },
    monitor: { type: "boolean", description: "Ran in monitor mode: logged and counted, never acted on." },
  },
};

export const logViewSchema: Schema = {
  type: "object",
  description: "The log view of one request (spec §2.5).",
  properties: {
    ...logColumns,
    guardrail_results: { type: "array", items: guardrailView },
    feedback: {
      type: "array",
      description: "Feedback an application sent on the answer (POST /v1/feedback), oldest first",
      items: feedbackSchema,
    },
    hook_results: anyObject,
    attempts: { type: "array", items: anyObject },
    error: nullable(anyObject),
    request: {},
    response: {},
    body_notes: {
      type: "object",
      description: "Why a logged body is cut or left out, by body",
      properties: { request: { type: "string" }, response: { type: "string" } },
      additionalProperties: false,
    },
    stream_stop: {
      type: "object",
      description:
        "A stream the gateway stopped after it began: the denying guardrails, and the characters of text the client had received",
      properties: {
        guardrails: { type: "array", items: { type: "string" } },
        released_chars: { type: "integer" },
        mode: { type: "string", enum: ["buffer", "window", "after"] },
      },
      additionalProperties: false,
    },
    provider_filters: {
      type: "object",
      description:
        "What the provider's own content filter said (Azure's content filter): whether it blocked or cut anything, and each category's worst verdict on the prompt and the completion",
      properties: {
        source: { type: "string" },
        filtered: { type: "boolean" },
        prompt: { type: "object", additionalProperties: filterVerdict },
        completion: { type: "object", additionalProperties: filterVerdict },
      },
      required: ["source", "filtered"],
      additionalProperties: false,
    },
  },
  required: [...Object.keys(logColumns), "guardrail_results", "feedback", "hook_results", "attempts", "error"],
  additionalProperties: false,
};

export const logPageSchema = record({
  data: { type: "array", items: logSummarySchema },
  next_cursor: nullable({ type: "string", description: "Pass as `cursor` for the next page; null on the last." }),
});

export const aggregateSchema = record({
  from: time,
  to: time,
  guardrails: { type: "array", items: guardrailStatsSchema },
  checks: { type: "array", items: checkStatsSchema },
});

export const checkInfoSchema = record({
  id: str,
  plugin: str,
  class: str,
  name: str,
  description: str,
  sides: { type: "array", items: str },
  kind: str,
  parameters: anyObject,
  available: { type: "boolean", description: "Whether the caller's plan includes the check." },
});
