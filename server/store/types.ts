/**
 * The management model (spec §2.6, §5): organizations, workspaces, API keys, integrations and their
 * provisioning to workspaces, AI providers, guardrail and config records. Plain data, the same for
 * every store implementation; timestamps are ISO 8601 strings in UTC. Each shape is derived from its
 * JSON Schema in store/schemas.ts (what each field means is said there); a record the store holds
 * with more than the API shows (a hash, sealed credentials) extends the derived type.
 */
import type { GuardrailDefinition } from "../../core/index.js";
import type { SchemaType } from "../schema-types.js";
import type {
  allowListSchema,
  apiKeySchema,
  autoProvisionSchema,
  budgetSchema,
  configRecordSchema,
  credentialsSchema,
  guardrailRecordSchema,
  integrationSchema,
  mcpCredentialsSchema,
  mcpServerSchema,
  mcpToolPinSchema,
  modelPriceSchema,
  organizationSchema,
  pluginIntegrationSchema,
  policyRecordSchema,
  policyScopeSchema,
  providerSchema,
  provisioningSchema,
  rateLimitSchema,
  replayReportSchema,
  settingsSchema,
  workspaceSchema,
  workspaceSelectionSchema,
} from "./schemas.js";
import { PLANS, POLICY_MODES, ROLES } from "./schemas.js";

export { PLANS, POLICY_MODES, ROLES };

/** Plans of an organization (spec §5). */
export type PlanName = (typeof PLANS)[number];

/** Roles of an API key. */
export type Role = (typeof ROLES)[number];

/** Requests and tokens per minute; an absent limit is no limit. */
export type RateLimit = SchemaType<typeof rateLimitSchema>;

/** A spend cap in the currency units of the price table, over a period (`monthly` when not given). */
export type Budget = SchemaType<typeof budgetSchema>;

/** Which models an integration (or a provider) allows: all, or the listed model slugs. */
export type ModelAllowList = SchemaType<typeof allowListSchema>;

/** Price of a model in currency units per million tokens. */
export type ModelPrice = SchemaType<typeof modelPriceSchema>;

/** Settings an organization gives its workspaces, which a workspace may override. */
export type WorkspaceSettings = SchemaType<typeof settingsSchema>;

/** An organization (spec §5). */
export type Organization = SchemaType<typeof organizationSchema>;

/** A workspace of an organization. */
export type Workspace = SchemaType<typeof workspaceSchema>;

/** An API key record; the key itself is never stored, only its hash. */
export type ApiKey = SchemaType<typeof apiKeySchema>;

/** An API key record with the hash it is found by. */
export interface ApiKeyWithHash extends ApiKey {
  /** SHA-256 of the key, hex. */
  hash: string;
}

/** Limits given to each workspace an integration is provisioned to automatically; an absent one is none. */
export type AutoProvision = SchemaType<typeof autoProvisionSchema>;

/** An integration (spec §2.6): a connection to a model provider with its credentials. */
export type Integration = SchemaType<typeof integrationSchema>;

/** An integration with its credentials encrypted, as the store holds it. */
export type IntegrationWithSecret = Integration & {
  /** Sealed credentials (see secret-box.ts), or null. */
  credentials_sealed: string | null;
};

/** Credentials of an integration, in the clear (only ever in memory). */
export type IntegrationCredentials = SchemaType<typeof credentialsSchema>;

/** An integration provisioned to a workspace, with that workspace's budget and rate limit. */
export type Provisioning = SchemaType<typeof provisioningSchema>;

/** Which workspaces an organization's plugin integration serves: every one, or those listed. */
export type WorkspaceSelection = SchemaType<typeof workspaceSelectionSchema>;

/**
 * A plugin integration (spec §1.7): the credentials of a third-party guardrail service, handed to
 * the checks of one plugin. An organization's serves the workspaces it is provisioned to; a
 * workspace's own serves that workspace and overrides the organization's there.
 */
export type PluginIntegration = SchemaType<typeof pluginIntegrationSchema>;

/** A plugin integration with its credentials encrypted, as the store holds it. */
export interface PluginIntegrationWithSecret extends PluginIntegration {
  /** Sealed credentials (see secret-box.ts). */
  credentials_sealed: string;
}

/** An AI provider (spec §2.6): a workspace-level slug over an integration. */
export type Provider = SchemaType<typeof providerSchema>;

/** A saved guardrail (spec §2.1) of a workspace; its definition is the engine's type, which the schema leaves open. */
export type GuardrailRecord = Omit<SchemaType<typeof guardrailRecordSchema>, "definition"> & {
  /** The guardrail as written (checks, side, actions); its `id` and `name` are the record's. */
  definition: GuardrailDefinition;
};

/** A saved config (spec §2.3) of a workspace. */
export type StoredConfig = SchemaType<typeof configRecordSchema>;

/** How a policy's guardrails act: `enforce` as written, `monitor` logged and counted only. */
export type PolicyMode = (typeof POLICY_MODES)[number];

/**
 * Which requests a policy applies to. Every list given must match (a request's workspace, its API
 * key, its `@slug/model`); an absent or empty list matches every request.
 */
/** Narrows a lookup to the records one workspace may see (the request log's too). */
export interface Scope {
  workspaceId?: string;
}

export type PolicyScope = SchemaType<typeof policyScopeSchema>;

/**
 * A policy: guardrails added to every request in its scope, which the client cannot remove. An
 * organisation-wide policy has no workspace; a workspace's own applies inside that workspace only.
 */
export type Policy = Omit<SchemaType<typeof policyRecordSchema>, "input_guardrails" | "output_guardrails"> & {
  /** Full definitions: saved guardrails named by id are copied in when the policy is saved. */
  input_guardrails: GuardrailDefinition[];
  output_guardrails: GuardrailDefinition[];
};

/** A saved replay report (docs/policies.md, "Replay reports"). */
export type ReplayReportRecord = SchemaType<typeof replayReportSchema> & {
  /** The report as `replay` made it. */
  report: Record<string, unknown>;
};

/** An MCP server a workspace registered (docs/mcp.md); its credentials are never shown. */
export type McpServer = SchemaType<typeof mcpServerSchema>;

/** An MCP server with its credentials encrypted, as the store holds it. */
export type McpServerWithSecret = McpServer & {
  /** Sealed credentials (see secret-box.ts), or null. */
  credentials_sealed: string | null;
};

/** Credentials of an MCP server, in the clear (only ever in memory). */
export type McpCredentials = SchemaType<typeof mcpCredentialsSchema>;

/** A pinned tool definition of an MCP server (docs/mcp.md, "Pinning"). */
export type McpToolPin = Omit<SchemaType<typeof mcpToolPinSchema>, "definition" | "pending_definition"> & {
  definition: Record<string, unknown> | null;
  pending_definition: Record<string, unknown> | null;
};
