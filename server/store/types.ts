/**
 * The management model (spec §2.6, §5): organizations, workspaces, API keys, integrations and their
 * provisioning to workspaces, AI providers, guardrail and config records. Plain data, the same for
 * every store implementation; timestamps are ISO 8601 strings in UTC.
 */
import type { GuardrailDefinition } from "../../core/index.js";

/** Plans of an organization (spec §5). */
export type PlanName = "developer" | "production" | "enterprise";

/** Every plan, cheapest first. */
export const PLANS: readonly PlanName[] = ["developer", "production", "enterprise"];

/** Roles of an API key. */
export type Role = "org_admin" | "workspace_admin" | "member";

/** Every role, most powerful first. */
export const ROLES: readonly Role[] = ["org_admin", "workspace_admin", "member"];

/** Requests and tokens per minute; an absent limit is no limit. */
export interface RateLimit {
  requests_per_minute?: number;
  tokens_per_minute?: number;
}

/** A spend cap in the currency units of the price table, over a period. */
export interface Budget {
  limit: number;
  /** `monthly` starts again on the first day of each month (UTC); `total` never does. */
  period: "monthly" | "total";
}

/** Which models an integration (or a provider) allows: all, or the listed model slugs. */
export type ModelAllowList = "all" | string[];

/** Price of a model in currency units per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Settings an organization gives its workspaces, which a workspace may override. */
export interface WorkspaceSettings {
  /** Keep request and response bodies (credentials removed) in the request log. */
  log_bodies?: boolean;
}

/** An organization (spec §5). */
export interface Organization {
  id: string;
  name: string;
  plan: PlanName;
  /** Guardrails are enabled per organization by the operator (spec §5). */
  guardrails_enabled: boolean;
  /** Whether workspace admins may create workspace-only integrations (spec §2.6). */
  allow_workspace_integrations: boolean;
  /** Defaults for the organization's workspaces. */
  settings: WorkspaceSettings;
  created_at: string;
  updated_at: string;
}

/** A workspace of an organization. */
export interface Workspace {
  id: string;
  organization_id: string;
  name: string;
  settings: WorkspaceSettings;
  /** A limit over every request of the workspace, whatever the provider. */
  rate_limit: RateLimit | null;
  created_at: string;
  updated_at: string;
}

/** An API key record; the key itself is never stored, only its hash. */
export interface ApiKey {
  id: string;
  organization_id: string;
  /** Null for organization-level admin keys. */
  workspace_id: string | null;
  name: string;
  role: Role;
  /** The first and last characters of the key, to tell keys apart; not enough to use one. */
  hint: string;
  created_at: string;
  updated_at: string;
}

/** An API key record with the hash it is found by. */
export interface ApiKeyWithHash extends ApiKey {
  /** SHA-256 of the key, hex. */
  hash: string;
}

/** Limits given to each workspace an integration is provisioned to automatically. */
export interface AutoProvision {
  budget: Budget | null;
  rate_limit: RateLimit | null;
}

/** An integration (spec §2.6): a connection to a model provider with its credentials. */
export interface Integration {
  id: string;
  organization_id: string;
  /** Set for a workspace-only integration, created by that workspace. */
  workspace_id: string | null;
  slug: string;
  name: string;
  /** Provider kind (`openai`, `anthropic`, `mock`, …). */
  provider: string;
  base_url: string | null;
  allowed_models: ModelAllowList;
  /** Prices that override or extend the gateway's price table, by model slug. */
  pricing: Record<string, ModelPrice>;
  /** Provision to every workspace created from now on, with these limits; null when off. */
  auto_provision: AutoProvision | null;
  /** Whether credentials are held (they are never returned). */
  has_credentials: boolean;
  created_at: string;
  updated_at: string;
}

/** An integration with its credentials encrypted, as the store holds it. */
export interface IntegrationWithSecret extends Integration {
  /** Sealed credentials (see secret-box.ts), or null. */
  credentials_sealed: string | null;
}

/** Credentials of an integration, in the clear (only ever in memory). */
export interface IntegrationCredentials {
  api_key?: string;
  /** Extra headers sent upstream; may hold credentials too, so they are sealed as well. */
  headers?: Record<string, string>;
  /**
   * The provider kind's settings (`aws_region`, `aws_secret_access_key`, `api_version`, …): sealed
   * with the credentials, since some hold secrets (server/providers/options.ts).
   */
  options?: Record<string, unknown>;
}

/** An integration provisioned to a workspace, with that workspace's budget and rate limit. */
export interface Provisioning {
  integration_id: string;
  workspace_id: string;
  budget: Budget | null;
  rate_limit: RateLimit | null;
  created_at: string;
  updated_at: string;
}

/** Which workspaces an organization's plugin integration serves: every one, or those listed. */
export type WorkspaceSelection = "all" | string[];

/**
 * A plugin integration (spec §1.7): the credentials of a third-party guardrail service, handed to
 * the checks of one plugin. An organization's serves the workspaces it is provisioned to; a
 * workspace's own serves that workspace and overrides the organization's there.
 */
export interface PluginIntegration {
  id: string;
  organization_id: string;
  /** Set for a workspace's own plugin integration. */
  workspace_id: string | null;
  /** Id of the plugin whose checks receive the credentials. */
  plugin: string;
  name: string;
  /** The workspaces an organization's plugin integration serves; a workspace's own: that workspace. */
  workspaces: WorkspaceSelection;
  /** Names of the credential fields held; their values are never returned. */
  credential_keys: string[];
  created_at: string;
  updated_at: string;
}

/** A plugin integration with its credentials encrypted, as the store holds it. */
export interface PluginIntegrationWithSecret extends PluginIntegration {
  /** Sealed credentials (see secret-box.ts). */
  credentials_sealed: string;
}

/** An AI provider (spec §2.6): a workspace-level slug over an integration. */
export interface Provider {
  id: string;
  workspace_id: string;
  /** Used as `@slug/model` and as a legacy `virtual_key`. */
  slug: string;
  name: string;
  integration_id: string;
  /** May only be stricter than the provisioning's. */
  budget: Budget | null;
  rate_limit: RateLimit | null;
  /** Narrows the integration's allow-list. */
  allowed_models: ModelAllowList;
  created_at: string;
  updated_at: string;
}

/** A saved guardrail (spec §2.1) of a workspace. */
export interface GuardrailRecord {
  workspace_id: string;
  id: string;
  name: string;
  /** The guardrail as written (checks, side, actions); its `id` and `name` are the record's. */
  definition: GuardrailDefinition;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A saved config (spec §2.3) of a workspace. */
export interface StoredConfig {
  workspace_id: string;
  id: string;
  name: string;
  config: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

/** How a policy's guardrails act: `enforce` as written, `monitor` logged and counted only. */
export type PolicyMode = "enforce" | "monitor";

/** Every policy mode. */
export const POLICY_MODES: readonly PolicyMode[] = ["enforce", "monitor"];

/**
 * Which requests a policy applies to. Every list given must match (a request's workspace, its API
 * key, its `@slug/model`); an absent or empty list matches every request.
 */
export interface PolicyScope {
  workspaces?: string[];
  api_keys?: string[];
  /** `@slug/model` patterns; `*` matches any run of characters. */
  models?: string[];
}

/**
 * A policy: guardrails added to every request in its scope, which the client cannot remove. An
 * organisation-wide policy has no workspace; a workspace's own applies inside that workspace only.
 */
export interface Policy {
  id: string;
  organization_id: string;
  workspace_id: string | null;
  name: string;
  mode: PolicyMode;
  scope: PolicyScope;
  /** Full definitions: saved guardrails named by id are copied in when the policy is saved. */
  input_guardrails: GuardrailDefinition[];
  output_guardrails: GuardrailDefinition[];
  created_at: string;
  updated_at: string;
}

/** A saved replay report (docs/policies.md, "Replay reports"). */
export interface ReplayReportRecord {
  id: string;
  organization_id: string;
  workspace_id: string | null;
  name: string;
  /** The report as `replay` made it. */
  report: Record<string, unknown>;
  created_at: string;
}
