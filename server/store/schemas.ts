/**
 * JSON Schemas of the management model (spec §2.6, §5): the records the store holds and the shapes
 * inside them (rate limits, budgets, allow-lists, prices, settings). They are the one source of
 * these shapes: store/types.ts derives the TypeScript types from them, management/schemas.ts builds
 * the admin API's bodies from the shapes, and the admin API answers with the records (OpenAPI and
 * serialisation: a field a record schema does not list is never sent).
 */
import { closedRecord, nullable } from "../schema-types.js";

/** Plans of an organization (spec §5), cheapest first. */
export const PLANS = ["developer", "production", "enterprise"] as const;

/** Roles of an API key, most powerful first. */
export const ROLES = ["org_admin", "workspace_admin", "member"] as const;

/** How a policy's guardrails act: `enforce` as written, `monitor` logged and counted only. */
export const POLICY_MODES = ["enforce", "monitor"] as const;

export const rateLimitSchema = {
  type: "object",
  description: "Requests and tokens per minute over a sliding window; an absent field is no limit.",
  properties: {
    requests_per_minute: { type: "integer", minimum: 1 },
    tokens_per_minute: { type: "integer", minimum: 1 },
  },
  additionalProperties: false,
} as const;

export const budgetSchema = {
  type: "object",
  description: "A spend cap in the currency of the price table (token usage × price per model).",
  properties: {
    limit: { type: "number", minimum: 0 },
    // `monthly` starts again on the first day of each month (UTC); `total` never does.
    period: { type: "string", enum: ["monthly", "total"], default: "monthly" },
  },
  required: ["limit"],
  additionalProperties: false,
} as const;

export const allowListSchema = {
  description: '"all", or the model slugs allowed.',
  anyOf: [
    { type: "string", enum: ["all"] },
    { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
  ],
} as const;

export const modelPriceSchema = {
  type: "object",
  properties: { input: { type: "number", minimum: 0 }, output: { type: "number", minimum: 0 } },
  required: ["input", "output"],
  additionalProperties: false,
} as const;

export const pricingSchema = {
  type: "object",
  description: "Price per million tokens by model slug (`*` for every model).",
  additionalProperties: modelPriceSchema,
} as const;

export const settingsSchema = {
  type: "object",
  properties: {
    log_bodies: { type: "boolean", description: "Keep request and response bodies (credentials removed) in request logs." },
  },
  additionalProperties: false,
} as const;

export const credentialsSchema = {
  type: "object",
  description: "Sent upstream; encrypted at rest and never returned.",
  properties: {
    api_key: { type: "string", minLength: 1 },
    // Extra headers sent upstream may hold credentials too, so they are sealed as well.
    headers: { type: "object", additionalProperties: { type: "string" } },
    // Sealed with the credentials, since some options hold secrets (server/providers/options.ts).
    options: {
      type: "object",
      description:
        "The provider kind's settings, named as the peer gateway's config keys (aws_region, api_version, …); checked against the kind's schema (docs/providers.md).",
    },
  },
  additionalProperties: false,
} as const;

export const autoProvisionSchema = {
  type: "object",
  description: "Provision to every workspace created from now on, with these limits.",
  properties: { budget: nullable(budgetSchema), rate_limit: nullable(rateLimitSchema) },
  additionalProperties: false,
} as const;

export const workspaceSelectionSchema = {
  description: '"all" (every workspace of the organization, present and future), or the workspace ids served.',
  anyOf: [
    { type: "string", enum: ["all"] },
    { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true },
  ],
} as const;

const idList = { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true } as const;

export const policyScopeSchema = {
  type: "object",
  description: "Which requests the policy applies to: every list given must match; an absent or empty list matches all.",
  properties: {
    workspaces: idList,
    api_keys: idList,
    models: { ...idList, description: '`@slug/model` patterns; `*` matches any run of characters ("@openai/*", "*-mini").' },
    mcp_servers: {
      ...idList,
      description:
        "MCP server names (`*` for any run of characters): a scope naming servers or tools holds tool traffic only (docs/mcp.md).",
    },
    tools: {
      ...idList,
      description: "Tool names (`*` for any run of characters), on the servers `mcp_servers` holds (any when absent).",
    },
  },
  additionalProperties: false,
} as const;

const str = { type: "string" } as const;
const time = { type: "string", format: "date-time" } as const;
const anyObject = { type: "object", additionalProperties: true } as const;

export const organizationSchema = closedRecord({
  id: str,
  name: str,
  plan: { type: "string", enum: [...PLANS] },
  // Guardrails are enabled per organization by the operator (spec §5).
  guardrails_enabled: { type: "boolean" },
  // Whether workspace admins may create workspace-only integrations (spec §2.6).
  allow_workspace_integrations: { type: "boolean" },
  // Defaults for the organization's workspaces, which a workspace may override.
  settings: settingsSchema,
  created_at: time,
  updated_at: time,
});

export const workspaceSchema = closedRecord({
  id: str,
  organization_id: str,
  name: str,
  settings: settingsSchema,
  // A limit over every request of the workspace, whatever the provider.
  rate_limit: nullable(rateLimitSchema),
  created_at: time,
  updated_at: time,
});

/** An API key record; the key itself is never stored, only its hash. */
export const apiKeySchema = closedRecord({
  id: str,
  organization_id: str,
  // Null for organization-level admin keys.
  workspace_id: nullable(str),
  name: str,
  role: { type: "string", enum: [...ROLES] },
  hint: { type: "string", description: "The key's first and last characters, to tell keys apart." },
  created_at: time,
  updated_at: time,
});

export const integrationSchema = closedRecord({
  id: str,
  organization_id: str,
  workspace_id: nullable({ type: "string", description: "Set for a workspace-only integration." }),
  slug: str,
  name: str,
  // Provider kind (`openai`, `anthropic`, `mock`, …).
  provider: str,
  base_url: nullable(str),
  allowed_models: allowListSchema,
  // Prices that override or extend the gateway's price table, by model slug.
  pricing: pricingSchema,
  auto_provision: nullable(autoProvisionSchema),
  has_credentials: { type: "boolean", description: "Whether credentials are held; they are never returned." },
  created_at: time,
  updated_at: time,
});

export const pluginIntegrationSchema = closedRecord({
  id: str,
  organization_id: str,
  workspace_id: nullable({ type: "string", description: "Set for a workspace's own, which overrides the organization's there." }),
  // Id of the plugin whose checks receive the credentials.
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

export const provisioningSchema = closedRecord({
  integration_id: str,
  workspace_id: str,
  budget: nullable(budgetSchema),
  rate_limit: nullable(rateLimitSchema),
  created_at: time,
  updated_at: time,
});

export const providerSchema = closedRecord({
  id: str,
  workspace_id: str,
  // Used as `@slug/model` and as a legacy `virtual_key`.
  slug: str,
  name: str,
  integration_id: str,
  // May only be stricter than the provisioning's.
  budget: nullable(budgetSchema),
  rate_limit: nullable(rateLimitSchema),
  // Narrows the integration's allow-list.
  allowed_models: allowListSchema,
  created_at: time,
  updated_at: time,
});

export const guardrailRecordSchema = closedRecord({
  workspace_id: str,
  id: str,
  name: str,
  definition: { ...anyObject, description: "The guardrail as written: checks, side, actions." },
  version: { type: "integer" },
  created_at: time,
  updated_at: time,
});

export const configRecordSchema = closedRecord({
  workspace_id: str,
  id: str,
  name: str,
  config: anyObject,
  version: { type: "integer" },
  created_at: time,
  updated_at: time,
});

export const policyRecordSchema = closedRecord({
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
      mcp_servers: { type: "array", items: str },
      tools: { type: "array", items: str },
    },
    additionalProperties: false,
  },
  input_guardrails: { type: "array", items: anyObject, description: "Full definitions; inline credentials masked." },
  output_guardrails: { type: "array", items: anyObject },
  created_at: time,
  updated_at: time,
});

/** A saved replay report, less the report itself (docs/policies.md, "Replay reports"). */
export const replayReportSchema = closedRecord({
  id: str,
  organization_id: str,
  workspace_id: nullable(str),
  name: str,
  created_at: str,
});

/** How a server's tool definitions are pinned (docs/mcp.md, "Pinning"). */
export const PINNING_MODES = ["first_use", "approval", "off"] as const;

/** Transports of a remote MCP server the store can hold (local stdio servers come from the config file only). */
export const MCP_REMOTE_TRANSPORTS = ["streamable_http", "sse"] as const;

/** How the gateway authenticates to an MCP server. */
export const MCP_AUTH_KINDS = ["none", "headers", "bearer", "oauth_client_credentials"] as const;

const namePatterns = { type: "array", items: { type: "string", minLength: 1 }, uniqueItems: true } as const;

export const toolControlsSchema = {
  type: "object",
  description: "Which tools clients may list and call; names or `*` patterns, the deny-list winning.",
  properties: {
    allow: { anyOf: [{ type: "string", enum: ["all"] }, namePatterns], default: "all" },
    deny: { ...namePatterns, default: [] },
  },
  additionalProperties: false,
} as const;

/** How the client authenticates to the token endpoint, named as RFC 8414 names them. */
export const MCP_TOKEN_AUTH_METHODS = ["client_secret_basic", "client_secret_post"] as const;

export const mcpOAuthSchema = {
  type: "object",
  description: "OAuth 2.0 client credentials grant: where the token is fetched; the client id and secret are credentials.",
  properties: {
    token_url: { type: "string", pattern: "^https?://" },
    scope: { type: "string" },
    audience: { type: "string" },
    token_endpoint_auth_method: {
      type: "string",
      enum: [...MCP_TOKEN_AUTH_METHODS],
      description: "HTTP Basic (`client_secret_basic`, when absent) or form fields (`client_secret_post`).",
    },
  },
  required: ["token_url"],
  additionalProperties: false,
} as const;

export const mcpCredentialsSchema = {
  type: "object",
  description: "Sent upstream; encrypted at rest and never returned, logged or passed to the client.",
  properties: {
    headers: { type: "object", additionalProperties: { type: "string" } },
    bearer_token: { type: "string", minLength: 1 },
    client_id: { type: "string", minLength: 1 },
    client_secret: { type: "string", minLength: 1 },
  },
  additionalProperties: false,
} as const;

export const mcpServerSchema = closedRecord({
  id: str,
  workspace_id: str,
  // The path segment clients use: /v1/mcp/{name}.
  name: str,
  transport: { type: "string", enum: [...MCP_REMOTE_TRANSPORTS] },
  url: str,
  answers: nullable({ type: "string", enum: ["sse", "json"] }),
  auth: { type: "string", enum: [...MCP_AUTH_KINDS], description: "Which credentials are held; they are never returned." },
  oauth: nullable(mcpOAuthSchema),
  header_names: { type: "array", items: str, description: "Names of the headers held; their values are never returned." },
  has_credentials: { type: "boolean" },
  trusted: {
    type: "boolean",
    description: "False when a workspace admin chose the URL: calls then obey the workspace address policy.",
  },
  tools: toolControlsSchema,
  pinning: { type: "string", enum: [...PINNING_MODES] },
  tool_pack: nullable({ type: "string", enum: ["standard"], description: "A named guardrail set on the tool sides." }),
  created_at: time,
  updated_at: time,
});

export const mcpToolPinSchema = closedRecord({
  // The server's workspace; "" for a server of the config file that every workspace reaches.
  workspace_id: str,
  server: str,
  tool: str,
  status: { type: "string", enum: ["pinned", "changed", "unapproved"] },
  hash: nullable({ type: "string", description: "The approved definition's hash (`sha256:…`)." }),
  definition: nullable({ ...anyObject, description: "The approved name, description and input schema." }),
  pending_hash: nullable(str),
  pending_definition: nullable({ ...anyObject, description: "The definition seen since, withheld until approved." }),
  flagged_at: nullable(time),
  created_at: time,
  updated_at: time,
});
