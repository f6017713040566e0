/**
 * Where the gateway's records come from: API keys, providers, saved configs and guardrails. Each is
 * an interface with async methods; the in-memory implementations are seeded from the config file,
 * and a store can implement the same interfaces without the routes knowing.
 */
import type { GuardrailDefinition, GuardrailSource } from "../../core/index.js";
import type { Scope } from "../store/types.js";

export type { GuardrailSource };

export type { Scope } from "../store/types.js";

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
   * peer gateway's config keys); the kind says which hold secrets (server/providers/kind.ts).
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

/** How the gateway reaches an MCP server: Streamable HTTP, the older HTTP+SSE, or a local process over stdio. */
export type McpTransportKind = "streamable_http" | "sse" | "stdio";

/** A local MCP server the gateway starts and supervises; only the operator's config file declares one. */
export interface McpStdioCommand {
  command: string;
  args?: string[];
  /** Added to a small base environment (PATH, HOME…), never the gateway's whole environment. */
  env?: Record<string, string>;
  /** Working folder; the config file's folder when absent. */
  cwd?: string;
}

/** An MCP server registered with the gateway, served to clients at `/v1/mcp/{name}`. */
export interface McpServerRecord {
  /** The path segment clients use. */
  name: string;
  transport: McpTransportKind;
  /** The server's endpoint, for the HTTP transports. */
  url?: string;
  /** The process to start, for `stdio`. */
  stdio?: McpStdioCommand;
  /** Sent upstream with every call; every value is treated as a secret and never reaches a client or a log. */
  headers?: Record<string, string>;
  /** Sent upstream as `Authorization: Bearer …`; never reaches a client or a log. */
  bearerToken?: string;
  /** Workspace the server belongs to; visible to every workspace when absent. */
  workspaceId?: string;
  /**
   * False when a workspace admin, not the operator, chose the URL: calls then obey the custom-host
   * address policy. Trusted when absent (private addresses allowed, metadata addresses never).
   */
  trusted?: boolean;
  /** How requests of a session are answered: an SSE stream (default, carries progress) or one JSON body. */
  answers?: "sse" | "json";
  /** Which tools clients may list and call (docs/mcp.md, "Tool controls"); every tool when absent. */
  tools?: { allow: "all" | readonly string[]; deny: readonly string[] };
  /** How tool definitions are pinned (docs/mcp.md, "Pinned tool definitions"); `first_use` when absent. */
  pinning?: "first_use" | "approval" | "off";
  /** A named guardrail set on the tool sides (`standard`); none when absent. */
  toolPack?: "standard";
}

/** A pinned tool definition as the tool guard reads and writes it (docs/mcp.md, "Pinned tool definitions"). */
export interface ToolPinState {
  tool: string;
  status: "pinned" | "changed" | "unapproved";
  /** The approved definition's hash; null when never approved. */
  hash: string | null;
  /** The definition seen since that awaits approval, else null. */
  pending_hash: string | null;
}

/** A tool definition seen in a listing, for the pin store. */
export interface SeenToolDefinition {
  tool: string;
  hash: string;
  definition: { name: string; description: string; inputSchema: unknown };
}

/** Where pinned tool definitions are kept, per server (the server's workspace, "" for one of every workspace). */
export interface ToolPinSource {
  list(workspaceId: string, server: string): Promise<ToolPinState[]>;
  /** Pins tools seen for the first time (`pinned`), or holds them for approval (`unapproved`); a pin held already stays. */
  pinNew(workspaceId: string, server: string, seen: SeenToolDefinition[], status: "pinned" | "unapproved"): Promise<void>;
  /** Flags a pinned tool whose definition changed: withheld until approved. */
  flag(workspaceId: string, server: string, seen: SeenToolDefinition): Promise<void>;
}

/** Looks MCP servers up by name. */
export interface McpServerSource {
  get(name: string, scope?: Scope): Promise<McpServerRecord | undefined>;
}
