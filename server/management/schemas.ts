/**
 * JSON Schemas of the management documents: request bodies of the admin API and the sections of
 * the config file that seed the store. One definition serves the routes (validation and the
 * OpenAPI document), the seeding and the body types of the management services (derived from these
 * schemas), so the three never disagree. The shapes inside (rate limits, budgets, …) are the
 * store's (store/schemas.ts).
 */
import { nullable } from "../schema-types.js";
import { SLUG_PATTERN, USER_ID_PATTERN } from "../store/ids.js";
import {
  allowListSchema,
  autoProvisionSchema,
  budgetSchema,
  credentialsSchema,
  PLANS,
  MCP_REMOTE_TRANSPORTS,
  mcpCredentialsSchema,
  mcpOAuthSchema,
  PINNING_MODES,
  policyScopeSchema,
  POLICY_MODES,
  pricingSchema,
  rateLimitSchema,
  ROLES,
  settingsSchema,
  toolControlsSchema,
  workspaceSelectionSchema,
} from "../store/schemas.js";

const name = { type: "string", minLength: 1, maxLength: 200 } as const;
const userId = { type: "string", pattern: USER_ID_PATTERN } as const;
const slug = { type: "string", pattern: SLUG_PATTERN } as const;

export const organizationCreateSchema = {
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
} as const;

export const organizationUpdateSchema = {
  type: "object",
  properties: {
    name,
    plan: { type: "string", enum: [...PLANS] },
    guardrails_enabled: { type: "boolean" },
    allow_workspace_integrations: { type: "boolean" },
    settings: settingsSchema,
  },
  additionalProperties: false,
} as const;

export const workspaceCreateSchema = {
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
} as const;

export const workspaceUpdateSchema = {
  type: "object",
  properties: { name, settings: settingsSchema, rate_limit: nullable(rateLimitSchema) },
  additionalProperties: false,
} as const;

export const apiKeyCreateSchema = {
  type: "object",
  properties: {
    name,
    role: { type: "string", enum: [...ROLES], default: "member" },
    workspace_id: nullable({ type: "string" }),
  },
  required: ["name"],
  additionalProperties: false,
} as const;

export const apiKeyUpdateSchema = {
  type: "object",
  properties: { name, role: { type: "string", enum: [...ROLES] } },
  additionalProperties: false,
} as const;

export const integrationCreateSchema = {
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
} as const;

export const integrationUpdateSchema = {
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
} as const;

const pluginCredentialsSchema = {
  type: "object",
  description:
    "Handed to the plugin's checks as `context.credentials`; validated against the plugin's credentials schema, encrypted at rest and never returned.",
  minProperties: 1,
} as const;

export const pluginIntegrationCreateSchema = {
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
} as const;

export const pluginIntegrationUpdateSchema = {
  type: "object",
  properties: { name, workspaces: workspaceSelectionSchema, credentials: pluginCredentialsSchema },
  additionalProperties: false,
} as const;

export const provisioningSchema = {
  type: "object",
  properties: { budget: nullable(budgetSchema), rate_limit: nullable(rateLimitSchema) },
  additionalProperties: false,
} as const;

export const providerCreateSchema = {
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
} as const;

export const providerUpdateSchema = {
  type: "object",
  properties: {
    name,
    budget: nullable(budgetSchema),
    rate_limit: nullable(rateLimitSchema),
    allowed_models: allowListSchema,
  },
  additionalProperties: false,
} as const;

/** A guardrail body: the guardrail as written; checks are validated by the engine's registry. */
export const guardrailSchema = {
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
    tool_results: {
      type: "boolean",
      description:
        "Input side: whether the checks read tool results (tool messages, function_call_output items) with the request's text (default true).",
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
} as const;

export const configSchema = {
  type: "object",
  properties: {
    id: userId,
    name,
    config: { type: "object", description: "The config (spec §2.3); validated by the engine before it is saved." },
    version: { type: "integer", minimum: 1, description: "On update: the version being replaced (optimistic concurrency)." },
  },
  required: ["config"],
  additionalProperties: false,
} as const;

const policyGuardrailsSchema = {
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
} as const;

const policyMode = {
  type: "string",
  enum: [...POLICY_MODES],
  description:
    "`monitor`: the guardrails run asynchronously, never change the answer, and their verdicts are logged and counted.",
} as const;

export const policyCreateSchema = {
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
} as const;

export const policyUpdateSchema = {
  type: "object",
  properties: {
    name,
    mode: policyMode,
    scope: policyScopeSchema,
    input_guardrails: policyGuardrailsSchema,
    output_guardrails: policyGuardrailsSchema,
  },
  additionalProperties: false,
} as const;

const replayId = { type: "string", minLength: 1 } as const;
const replayTime = { type: "string", format: "date-time" } as const;

/** What to replay, over which logs (docs/policies.md, "Replay"). */
export const replayBodySchema = {
  type: "object",
  properties: {
    guardrail_id: replayId,
    policy_id: replayId,
    workspace_id: {
      ...replayId,
      description: "The guardrail's workspace (required with guardrail_id); narrows a policy's logs.",
    },
    from: replayTime,
    to: replayTime,
    save: { type: "string", minLength: 1, maxLength: 200, description: "Save the report under this name." },
    compare: { ...replayId, description: "Id of a saved report to compare this run with." },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: 1_000_000,
      description: "Logs read at most, newest first; 100000 by default.",
    },
  },
  additionalProperties: false,
} as const;

const mcpServerFields = {
  transport: { type: "string", enum: [...MCP_REMOTE_TRANSPORTS], default: "streamable_http" },
  url: { type: "string", pattern: "^https?://", maxLength: 2048 },
  answers: nullable({ type: "string", enum: ["sse", "json"] }),
  oauth: nullable(mcpOAuthSchema),
  tools: toolControlsSchema,
  pinning: { type: "string", enum: [...PINNING_MODES] },
  tool_pack: nullable({ type: "string", enum: ["standard"] }),
} as const;

/** Body of an MCP server create. */
export const mcpServerCreateSchema = {
  type: "object",
  properties: { name: slug, ...mcpServerFields, credentials: mcpCredentialsSchema },
  required: ["name", "url"],
  additionalProperties: false,
} as const;

/** Body of an MCP server update: `credentials` replaces them, null removes them. */
export const mcpServerUpdateSchema = {
  type: "object",
  properties: { ...mcpServerFields, credentials: nullable(mcpCredentialsSchema) },
  additionalProperties: false,
} as const;
