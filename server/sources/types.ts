/**
 * Where the gateway's records come from: API keys, providers, saved configs and guardrails. Each is
 * an interface with async methods; the in-memory implementations are seeded from the config file,
 * and a store can implement the same interfaces without the routes knowing.
 */
import type { GuardrailDefinition, GuardrailSource } from "../../core/index.js";

export type { GuardrailSource };

/** Narrows a lookup to the records one workspace may see. */
export interface Scope {
  workspaceId?: string;
}

/** An API key as the gateway sees it after verification: never the key itself. */
export interface ApiKeyIdentity {
  /** Stable id of the key record (for logs); not the secret. */
  id: string;
  workspaceId: string;
  name?: string;
}

/** Verifies `x-gateway-api-key` values. */
export interface ApiKeySource {
  /** The identity of a valid key, or undefined. Implementations compare secrets in constant time. */
  verify(key: string): Promise<ApiKeyIdentity | undefined>;
  /** Why a key `verify` refused cannot call models although it is a real key (an admin key), if so. */
  whyRefused?(key: string): Promise<string | undefined>;
  /**
   * An organization admin key acting in `workspaceId`, when that workspace is one of its
   * organization's; undefined otherwise. Hook routes only: the key could make itself a key of that
   * workspace anyway, so evaluating there grants nothing new, while model calls stay refused.
   */
  verifyInWorkspace?(key: string, workspaceId: string): Promise<ApiKeyIdentity | undefined>;
}

/** A provider defined by the operator (spec §2.6): a slug with its credentials. */
export interface ProviderRecord {
  slug: string;
  /** Provider name from the catalog (`openai`, `anthropic`, `mock`, …). */
  provider: string;
  /** Base URL including the version segment; the catalog's when absent. */
  baseUrl?: string;
  /** Credential sent upstream; stays on the server. */
  apiKey?: string;
  /** Extra headers sent upstream with every call. */
  headers?: Record<string, string>;
  /**
   * The kind's settings (`aws_region`, `api_version`, `aws_secret_access_key`, …, named as the
   * peer gateway's config keys); the kind says which hold secrets (server/providers/adapter.ts).
   */
  options?: Record<string, unknown>;
  /** Workspace the provider belongs to; visible to every workspace when absent. */
  workspaceId?: string;
  /**
   * False when a workspace admin, not the operator, chose the base URL: calls then go through the
   * custom-host address policy. Trusted when absent.
   */
  trusted?: boolean;
}

/** Looks providers up by slug. */
export interface ProviderSource {
  get(slug: string, scope?: Scope): Promise<ProviderRecord | undefined>;
}

/** A saved config (spec §2.3), referenced by id in `x-gateway-config`. */
export interface ConfigRecord {
  id: string;
  config: Record<string, unknown>;
  workspaceId?: string;
}

/** Looks saved configs up by id. */
export interface ConfigSource {
  get(id: string, scope?: Scope): Promise<ConfigRecord | undefined>;
}

/** Credentials the service holds for plugins (spec §1.7), by plugin id. */
export type PluginCredentialMap = Record<string, Record<string, unknown>>;

/** Looks up the credentials the service holds for plugins in a workspace. */
export interface PluginCredentialSource {
  /** By plugin id; empty when no plugin integration serves the workspace. */
  forWorkspace(workspaceId: string): Promise<PluginCredentialMap>;
}

/** Which requests a policy applies to (docs/policies.md): every list given must match. */
export interface PolicyScopeRule {
  workspaces?: string[];
  api_keys?: string[];
  /** `@slug/model` patterns; `*` matches any run of characters. */
  models?: string[];
  /** MCP server names; a scope naming servers or tools holds tool traffic only (docs/mcp.md). */
  mcp_servers?: string[];
  /** Tool names; `*` matches any run of characters. */
  tools?: string[];
}

/** A policy as the request path applies it. */
export interface PolicyRecord {
  id: string;
  name: string;
  mode: "enforce" | "monitor";
  scope: PolicyScopeRule;
  input_guardrails: GuardrailDefinition[];
  output_guardrails: GuardrailDefinition[];
}

/** Looks up the policies that may apply to a workspace's requests. */
export interface PolicySource {
  /** The organisation's policies and the workspace's own, oldest first. */
  forWorkspace(workspaceId: string): Promise<PolicyRecord[]>;
}
