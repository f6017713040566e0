/**
 * JSON Schemas of the admin API's answers. They document the API (OpenAPI) and also serialise the
 * answers: a field a schema does not list is never sent, a second guard against a credential
 * slipping into a response.
 */
import {
  allowListSchema,
  autoProvisionSchema,
  budgetSchema,
  pricingSchema,
  rateLimitSchema,
  settingsSchema,
  workspaceSelectionSchema,
} from "../management/schemas.js";
import { PLANS, POLICY_MODES, ROLES } from "../store/types.js";

type Schema = Record<string, unknown>;

const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
const str = { type: "string" };
const time = { type: "string", format: "date-time" };

/** An object schema whose listed fields are all present. */
function record(properties: Record<string, unknown>, description?: string): Schema {
  return {
    type: "object",
    ...(description && { description }),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

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

export const organizationSchema = record({
  id: str,
  name: str,
  plan: { type: "string", enum: [...PLANS] },
  guardrails_enabled: { type: "boolean" },
  allow_workspace_integrations: { type: "boolean" },
  settings: settingsSchema,
  created_at: time,
  updated_at: time,
});

export const workspaceSchema = record({
  id: str,
  organization_id: str,
  name: str,
  settings: settingsSchema,
  rate_limit: nullable(rateLimitSchema),
  created_at: time,
  updated_at: time,
});

const apiKeyProperties = {
  id: str,
  organization_id: str,
  workspace_id: nullable(str),
  name: str,
  role: { type: "string", enum: [...ROLES] },
  hint: { type: "string", description: "The key's first and last characters, to tell keys apart." },
  created_at: time,
  updated_at: time,
};

export const apiKeySchema = record(apiKeyProperties);

export const createdApiKeySchema = record(
  { ...apiKeyProperties, key: { type: "string", description: "The key itself: shown this once, never again." } },
  "The new key's record and the key itself.",
);

export const integrationSchema = record({
  id: str,
  organization_id: str,
  workspace_id: nullable({ type: "string", description: "Set for a workspace-only integration." }),
  slug: str,
  name: str,
  provider: str,
  base_url: nullable(str),
  allowed_models: allowListSchema,
  pricing: pricingSchema,
  auto_provision: nullable(autoProvisionSchema),
  has_credentials: { type: "boolean", description: "Whether credentials are held; they are never returned." },
  created_at: time,
  updated_at: time,
});

export const pluginIntegrationSchema = record({
  id: str,
  organization_id: str,
  workspace_id: nullable({ type: "string", description: "Set for a workspace's own, which overrides the organization's there." }),
  plugin: str,
  name: str,
  workspaces: workspaceSelectionSchema,
  credential_keys: {
    type: "array",
    items: str,
    description: "Names of the credential fields held; their values are never returned.",
  },
  created_at: time,
  updated_at: time,
});

export const provisioningSchema = record({
  integration_id: str,
  workspace_id: str,
  budget: nullable(budgetSchema),
  rate_limit: nullable(rateLimitSchema),
  created_at: time,
  updated_at: time,
});

export const providerSchema = record({
  id: str,
  workspace_id: str,
  slug: str,
  name: str,
  integration_id: str,
  budget: nullable(budgetSchema),
  rate_limit: nullable(rateLimitSchema),
  allowed_models: allowListSchema,
  created_at: time,
  updated_at: time,
});

export const provisionedSchema = record({
  provisioning: provisioningSchema,
  provider: nullable(providerSchema),
});

const anyObject = { type: "object", additionalProperties: true };

export const guardrailRecordSchema = record({
  workspace_id: str,
  id: str,
  name: str,
  definition: { ...anyObject, description: "The guardrail as written: checks, side, actions." },
  version: { type: "integer" },
  created_at: time,
  updated_at: time,
});

export const configRecordSchema = record({
  workspace_id: str,
  id: str,
  name: str,
  config: anyObject,
  version: { type: "integer" },
  created_at: time,
  updated_at: time,
});

export const policyRecordSchema = record({
  id: str,
  organization_id: str,
  workspace_id: nullable(str),
  name: str,
  mode: { type: "string", enum: [...POLICY_MODES] },
  scope: {
    type: "object",
    properties: {
      workspaces: { type: "array", items: str },
      api_keys: { type: "array", items: str },
      models: { type: "array", items: str },
    },
    additionalProperties: false,
  },
  input_guardrails: { type: "array", items: anyObject, description: "Full definitions; inline credentials masked." },
  output_guardrails: { type: "array", items: anyObject },
  created_at: time,
  updated_at: time,
});

/** A list answer. */
export function listOf(item: Schema): Schema {
  return record({ data: { type: "array", items: item } });
}

const latency = record({
  p50: { type: "number" },
  p90: { type: "number" },
  p95: { type: "number" },
  p99: { type: "number" },
  max: { type: "number" },
});

const overview = record({
  guardrails_passed: { type: "integer" },
  guardrails_failed: { type: "integer" },
  checks_passed: { type: "integer" },
  checks_failed: { type: "integer" },
  checks_errored: { type: "integer" },
});

const num = nullable({ type: "number" });
/** One category's verdict of a provider's content filter (server/logs/record.ts, FilterVerdict). */
const filterVerdict = {
  type: "object",
  properties: { filtered: { type: "boolean" }, severity: str, detected: { type: "boolean" } },
  required: ["filtered"],
  additionalProperties: false,
};

const logColumns = {
  id: str,
  created_at: time,
  organization_id: nullable(str),
  workspace_id: str,
  api_key_id: nullable(str),
  route: str,
  request_type: nullable(str),
  status: { type: "integer" },
  latency_ms: { type: "number" },
  upstream_latency_ms: num,
  provider: nullable(str),
  provider_id: nullable(str),
  integration_id: nullable(str),
  model: nullable(str),
  config_id: nullable(str),
  cache_status: nullable(str),
  retry_count: { type: "integer" },
  target: nullable(str),
  input_tokens: num,
  output_tokens: num,
  cost: num,
  error_code: nullable(str),
  guardrails: overview,
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
      items: record({
        id: str,
        value: { type: "integer", minimum: -10, maximum: 10 },
        weight: { type: "number", minimum: 0, maximum: 1 },
        metadata: { type: "object", additionalProperties: { type: "string" } },
        created_at: time,
        updated_at: time,
      }),
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
  guardrails: {
    type: "array",
    items: record({
      guardrail_id: str,
      runs: { type: "integer" },
      passed: { type: "integer" },
      failed: { type: "integer" },
      latency_ms: latency,
    }),
  },
  checks: {
    type: "array",
    items: record({
      check_id: str,
      runs: { type: "integer" },
      passed: { type: "integer" },
      failed: { type: "integer" },
      errored: { type: "integer" },
      latency_ms: latency,
    }),
  },
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
