/**
 * JSON Schemas of the management documents: request bodies of the admin API and the sections of
 * the config file that seed the store. One definition serves the routes (validation and the
 * OpenAPI document) and the seeding, so the two never disagree.
 */
import { PLANS, ROLES } from "../store/types.js";
import { SLUG_PATTERN, USER_ID_PATTERN } from "../store/ids.js";

type Schema = Record<string, unknown>;

export const rateLimitSchema: Schema = {
  type: "object",
  description: "Requests and tokens per minute over a sliding window; an absent field is no limit.",
  properties: {
    requests_per_minute: { type: "integer", minimum: 1 },
    tokens_per_minute: { type: "integer", minimum: 1 },
  },
  additionalProperties: false,
};

export const budgetSchema: Schema = {
  type: "object",
  description: "A spend cap in the currency of the price table (token usage × price per model).",
  properties: {
    limit: { type: "number", minimum: 0 },
    period: { type: "string", enum: ["monthly", "total"], default: "monthly" },
  },
  required: ["limit"],
  additionalProperties: false,
};

const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });

export const allowListSchema: Schema = {
  description: '"all", or the model slugs allowed.',
  anyOf: [
    { type: "string", enum: ["all"] },
    { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
  ],
};

export const pricingSchema: Schema = {
  type: "object",
  description: "Price per million tokens by model slug (`*` for every model).",
  additionalProperties: {
    type: "object",
    properties: { input: { type: "number", minimum: 0 }, output: { type: "number", minimum: 0 } },
    required: ["input", "output"],
    additionalProperties: false,
  },
};

export const settingsSchema: Schema = {
  type: "object",
  properties: {
    log_bodies: { type: "boolean", description: "Keep request and response bodies (credentials removed) in request logs." },
  },
  additionalProperties: false,
};

export const credentialsSchema: Schema = {
  type: "object",
  description: "Sent upstream; encrypted at rest and never returned.",
  properties: {
    api_key: { type: "string", minLength: 1 },
    headers: { type: "object", additionalProperties: { type: "string" } },
    options: {
      type: "object",
      description:
        "The provider kind's settings, named as the peer gateway's config keys (aws_region, api_version, …); checked against the kind's schema (docs/providers.md).",
    },
  },
  additionalProperties: false,
};

export const autoProvisionSchema: Schema = {
  type: "object",
  description: "Provision to every workspace created from now on, with these limits.",
  properties: { budget: nullable(budgetSchema), rate_limit: nullable(rateLimitSchema) },
  additionalProperties: false,
};

const name = { type: "string", minLength: 1, maxLength: 200 };
const userId = { type: "string", pattern: USER_ID_PATTERN };
const slug = { type: "string", pattern: SLUG_PATTERN };

export const organizationCreateSchema: Schema = {
  type: "object",
  properties: {
    id: userId,
    name,
    plan: { type: "string", enum: [...PLANS] },
    guardrails_enabled: { type: "boolean" },
    allow_workspace_integrations: { type: "boolean" },
    settings: settingsSchema,
  },
  required: ["name"],
  additionalProperties: false,
};

export const organizationUpdateSchema: Schema = {
  type: "object",
  properties: {
    name,
    plan: { type: "string", enum: [...PLANS] },
    guardrails_enabled: { type: "boolean" },
    allow_workspace_integrations: { type: "boolean" },
    settings: settingsSchema,
  },
  additionalProperties: false,
};

export const workspaceCreateSchema: Schema = {
  type: "object",
  properties: {
    id: userId,
    organization_id: { type: "string" },
    name,
    settings: settingsSchema,
    rate_limit: nullable(rateLimitSchema),
  },
  required: ["name"],
  additionalProperties: false,
};

export const workspaceUpdateSchema: Schema = {
  type: "object",
  properties: { name, settings: settingsSchema, rate_limit: nullable(rateLimitSchema) },
  additionalProperties: false,
};

export const apiKeyCreateSchema: Schema = {
  type: "object",
  properties: {
    name,
    role: { type: "string", enum: [...ROLES], default: "member" },
    workspace_id: nullable({ type: "string" }),
  },
  required: ["name"],
  additionalProperties: false,
};

export const apiKeyUpdateSchema: Schema = {
  type: "object",
  properties: { name, role: { type: "string", enum: [...ROLES] } },
  additionalProperties: false,
};

export const integrationCreateSchema: Schema = {
  type: "object",
  properties: {
    slug,
    name,
    provider: { type: "string", minLength: 1 },
    workspace_id: nullable({ type: "string" }),
    base_url: nullable({ type: "string", pattern: "^https?://" }),
    credentials: nullable(credentialsSchema),
    allowed_models: allowListSchema,
    pricing: pricingSchema,
    auto_provision: nullable(autoProvisionSchema),
  },
  required: ["slug", "provider"],
  additionalProperties: false,
};

export const integrationUpdateSchema: Schema = {
  type: "object",
  properties: {
    name,
    provider: { type: "string", minLength: 1 },
    base_url: nullable({ type: "string", pattern: "^https?://" }),
    credentials: nullable(credentialsSchema),
    allowed_models: allowListSchema,
    pricing: pricingSchema,
    auto_provision: nullable(autoProvisionSchema),
  },
  additionalProperties: false,
};

const pluginCredentialsSchema: Schema = {
  type: "object",
  description:
    "Handed to the plugin's checks as `context.credentials`; validated against the plugin's credentials schema, encrypted at rest and never returned.",
  minProperties: 1,
};

export const workspaceSelectionSchema: Schema = {
  description: '"all" (every workspace of the organization, present and future), or the workspace ids served.',
  anyOf: [
    { type: "string", enum: ["all"] },
    { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
  ],
};

export const pluginIntegrationCreateSchema: Schema = {
  type: "object",
  properties: {
    plugin: { type: "string", minLength: 1, description: "Id of a loaded plugin." },
    name,
    workspace_id: nullable({
      type: "string",
      description: "Set to create a workspace's own, which overrides the organization's.",
    }),
    workspaces: workspaceSelectionSchema,
    credentials: pluginCredentialsSchema,
  },
  required: ["plugin", "credentials"],
  additionalProperties: false,
};

export const pluginIntegrationUpdateSchema: Schema = {
  type: "object",
  properties: { name, workspaces: workspaceSelectionSchema, credentials: pluginCredentialsSchema },
  additionalProperties: false,
};

export const provisioningSchema: Schema = {
  type: "object",
  properties: { budget: nullable(budgetSchema), rate_limit: nullable(rateLimitSchema) },
  additionalProperties: false,
};

export const providerCreateSchema: Schema = {
  type: "object",
  properties: {
    slug,
    name,
    integration_id: { type: "string" },
    budget: nullable(budgetSchema),
    rate_limit: nullable(rateLimitSchema),
    allowed_models: allowListSchema,
  },
  required: ["slug", "integration_id"],
  additionalProperties: false,
};

export const providerUpdateSchema: Schema = {
  type: "object",
  properties: {
    name,
    budget: nullable(budgetSchema),
    rate_limit: nullable(rateLimitSchema),
    allowed_models: allowListSchema,
  },
  additionalProperties: false,
};

/** A guardrail body: the guardrail as written; checks are validated by the engine's registry. */
export const guardrailSchema: Schema = {
  type: "object",
  properties: {
    id: userId,
    name,
    type: { type: "string", enum: ["guardrail"] },
    side: { type: "string", enum: ["input", "output"] },
    async: { type: "boolean" },
    deny: { type: "boolean" },
    sequential: { type: "boolean" },
    mode: {
      type: "string",
      enum: ["enforce", "monitor"],
      description: "`monitor`: runs asynchronously; its verdicts are logged and counted, never acted on.",
    },
    stream_mode: {
      type: "string",
      enum: ["buffer", "window", "after"],
      description: "How a streamed answer is held for this output guardrail.",
    },
    tool_arguments: {
      type: "boolean",
      description: "Output side: whether the checks read tool-call arguments with the answer's text (default true).",
    },
    checks: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { id: { type: "string", minLength: 1 }, parameters: { type: "object" }, is_enabled: { type: "boolean" } },
        required: ["id"],
        additionalProperties: false,
      },
    },
    on_success: { type: "object" },
    on_fail: { type: "object" },
    version: { type: "integer", minimum: 1, description: "On update: the version being replaced (optimistic concurrency)." },
  },
  required: ["checks"],
  additionalProperties: false,
};

export const configSchema: Schema = {
  type: "object",
  properties: {
    id: userId,
    name,
    config: { type: "object", description: "The config (spec §2.3); validated by the engine before it is saved." },
    version: { type: "integer", minimum: 1, description: "On update: the version being replaced (optimistic concurrency)." },
  },
  required: ["config"],
  additionalProperties: false,
};

const policyGuardrailsSchema: Schema = {
  type: "array",
  description:
    'Saved guardrails by id (an organisation-wide policy writes "workspace_id/guardrail_id"), or guardrails written inline.',
  items: {
    anyOf: [
      { type: "string", minLength: 1 },
      {
        type: "object",
        description: "A guardrail as a config writes it inline (full or shorthand); validated by the check registry.",
      },
    ],
  },
};

const idList: Schema = { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true };

export const policyScopeSchema: Schema = {
  type: "object",
  description: "Which requests the policy applies to: every list given must match; an absent or empty list matches all.",
  properties: {
    workspaces: idList,
    api_keys: idList,
    models: { ...idList, description: '`@slug/model` patterns; `*` matches any run of characters ("@openai/*", "*-mini").' },
  },
  additionalProperties: false,
};

const policyMode: Schema = {
  type: "string",
  enum: ["enforce", "monitor"],
  description:
    "`monitor`: the guardrails run asynchronously, never change the answer, and their verdicts are logged and counted.",
};

export const policyCreateSchema: Schema = {
  type: "object",
  properties: {
    id: userId,
    name,
    workspace_id: nullable({
      type: "string",
      description: "Set for a workspace's own policy; absent for an organisation-wide one.",
    }),
    mode: policyMode,
    scope: policyScopeSchema,
    input_guardrails: policyGuardrailsSchema,
    output_guardrails: policyGuardrailsSchema,
  },
  additionalProperties: false,
};

export const policyUpdateSchema: Schema = {
  type: "object",
  properties: {
    name,
    mode: policyMode,
    scope: policyScopeSchema,
    input_guardrails: policyGuardrailsSchema,
    output_guardrails: policyGuardrailsSchema,
  },
  additionalProperties: false,
};
