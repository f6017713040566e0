/**
 * The store's repository interface. Every method is async and speaks the plain data of types.ts, so
 * a Postgres implementation can replace the embedded SQLite one without changing a caller: ids and
 * timestamps are made by the caller (never by the database), each method is atomic on its own,
 * pagination cursors are opaque strings, and changes are announced through `changes`.
 *
 * The repository keeps data; rules (plans, roles, stricter budgets, validation) live above it in
 * the management service.
 */

import type { FeedbackRecord, GuardrailAggregate, LogEntry, LogFilter, LogPage, NewLogEntry, SpendFilter } from "./log-types.js";
import type { DatasetRecord, DatasetRow, EvalRunRecord } from "./dataset-types.js";
import type { StoredResponse } from "./response-types.js";
import type {
  ApiKey,
  ApiKeyWithHash,
  GuardrailRecord,
  Integration,
  IntegrationWithSecret,
  McpServer,
  McpServerWithSecret,
  McpToolPin,
  Organization,
  PluginIntegration,
  PluginIntegrationWithSecret,
  Policy,
  Provider,
  Provisioning,
  ReplayReportRecord,
  StoredConfig,
  Workspace,
} from "./types.js";

/** What changed; caches drop what an event names. `external` means another process wrote. */
export type ChangeEvent =
  | {
      entity:
        | "organization"
        | "workspace"
        | "api_key"
        | "integration"
        | "provisioning"
        | "plugin_integration"
        | "provider"
        | "guardrail"
        | "config"
        | "policy"
        | "mcp_server"
        | "mcp_tool_pin";
      id: string;
      workspace_id?: string | null;
    }
  | { entity: "external" };

/** Announces changes to the records the gateway caches. */
export interface ChangeFeed {
  /** Calls `listener` after every change; returns the function that stops it. */
  subscribe(listener: (event: ChangeEvent) => void): () => void;
}

/** A patch: the fields given are replaced, the others kept. */
export type Patch<T, K extends keyof T> = Partial<Pick<T, K>>;

export interface OrganizationRepository {
  create(record: Organization): Promise<Organization>;
  get(id: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
  update(
    id: string,
    patch: Patch<Organization, "name" | "plan" | "guardrails_enabled" | "allow_workspace_integrations" | "settings">,
    updatedAt: string,
  ): Promise<Organization | undefined>;
  /** Deletes the organization with everything it holds. */
  delete(id: string): Promise<boolean>;
}

export interface WorkspaceRepository {
  create(record: Workspace): Promise<Workspace>;
  get(id: string): Promise<Workspace | undefined>;
  list(organizationId: string): Promise<Workspace[]>;
  update(
    id: string,
    patch: Patch<Workspace, "name" | "settings" | "rate_limit">,
    updatedAt: string,
  ): Promise<Workspace | undefined>;
  /** Deletes the workspace with its keys, providers, provisioning, guardrails, configs and logs. */
  delete(id: string): Promise<boolean>;
  /** How many workspaces exist in all (bootstrapping runs on an empty store). */
  count(): Promise<number>;
}

export interface ApiKeyRepository {
  create(record: ApiKeyWithHash): Promise<ApiKey>;
  get(id: string): Promise<ApiKey | undefined>;
  /** The key whose SHA-256 (hex) is `hash`; the caller confirms it in constant time. */
  findByHash(hash: string): Promise<ApiKeyWithHash | undefined>;
  list(filter: { organizationId: string; workspaceId?: string }): Promise<ApiKey[]>;
  update(id: string, patch: Patch<ApiKey, "name" | "role">, updatedAt: string): Promise<ApiKey | undefined>;
  delete(id: string): Promise<boolean>;
}

export interface IntegrationRepository {
  create(record: IntegrationWithSecret): Promise<Integration>;
  get(id: string): Promise<Integration | undefined>;
  /** With the sealed credentials, for the gateway's hot path only. */
  getWithSecret(id: string): Promise<IntegrationWithSecret | undefined>;
  findBySlug(organizationId: string, slug: string): Promise<Integration | undefined>;
  /** `workspaceId` narrows to one workspace's own integrations; `null` to organization-level ones. */
  list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Integration[]>;
  update(
    id: string,
    patch: Patch<
      IntegrationWithSecret,
      | "name"
      | "provider"
      | "base_url"
      | "allowed_models"
      | "pricing"
      | "auto_provision"
      | "credentials_sealed"
      | "has_credentials"
    >,
    updatedAt: string,
  ): Promise<Integration | undefined>;
  /** Deletes the integration, its provisioning and the providers over it. */
  delete(id: string): Promise<boolean>;
}

export interface ProvisioningRepository {
  /** Creates or replaces the provisioning of an integration to a workspace. */
  put(record: Provisioning): Promise<Provisioning>;
  get(integrationId: string, workspaceId: string): Promise<Provisioning | undefined>;
  list(filter: { integrationId?: string; workspaceId?: string }): Promise<Provisioning[]>;
  /** Removes the provisioning and the workspace's providers over that integration. */
  delete(integrationId: string, workspaceId: string): Promise<boolean>;
}

export interface PluginIntegrationRepository {
  /** Resolves to undefined when the scope (organization or workspace) already holds one for the plugin. */
  create(record: PluginIntegrationWithSecret): Promise<PluginIntegration | undefined>;
  get(id: string): Promise<PluginIntegration | undefined>;
  /** With the sealed credentials. */
  getWithSecret(id: string): Promise<PluginIntegrationWithSecret | undefined>;
  /** The one of a plugin in a scope: the organization's when `workspaceId` is null, else that workspace's own. */
  find(organizationId: string, workspaceId: string | null, plugin: string): Promise<PluginIntegration | undefined>;
  /** `workspaceId` narrows to one workspace's own; `null` to the organization's. */
  list(filter: { organizationId: string; workspaceId?: string | null }): Promise<PluginIntegration[]>;
  /**
   * Those serving a workspace, with their sealed credentials, for the gateway's hot path only:
   * the workspace's own and the organization's provisioned to it.
   */
  listServing(organizationId: string, workspaceId: string): Promise<PluginIntegrationWithSecret[]>;
  update(
    id: string,
    patch: Patch<PluginIntegrationWithSecret, "name" | "workspaces" | "credentials_sealed" | "credential_keys">,
    updatedAt: string,
  ): Promise<PluginIntegration | undefined>;
  delete(id: string): Promise<boolean>;
}

export interface ProviderRepository {
  create(record: Provider): Promise<Provider>;
  get(id: string): Promise<Provider | undefined>;
  findBySlug(workspaceId: string, slug: string): Promise<Provider | undefined>;
  list(filter: { workspaceId?: string; integrationId?: string }): Promise<Provider[]>;
  update(
    id: string,
    patch: Patch<Provider, "name" | "budget" | "rate_limit" | "allowed_models">,
    updatedAt: string,
  ): Promise<Provider | undefined>;
  delete(id: string): Promise<boolean>;
}

export interface McpServerRepository {
  /** Resolves to undefined when the workspace already has a server of that name. */
  create(record: McpServerWithSecret): Promise<McpServer | undefined>;
  get(id: string): Promise<McpServer | undefined>;
  findByName(workspaceId: string, name: string): Promise<McpServer | undefined>;
  /** With the sealed credentials, for the gateway's hot path only. */
  getWithSecret(workspaceId: string, name: string): Promise<McpServerWithSecret | undefined>;
  list(workspaceId: string): Promise<McpServer[]>;
  update(
    id: string,
    patch: Patch<
      McpServerWithSecret,
      | "transport"
      | "url"
      | "answers"
      | "auth"
      | "oauth"
      | "header_names"
      | "credentials_sealed"
      | "has_credentials"
      | "trusted"
      | "tools"
      | "pinning"
      | "tool_pack"
    >,
    updatedAt: string,
  ): Promise<McpServer | undefined>;
  /** Deletes the server with its pinned tool definitions. */
  delete(id: string): Promise<boolean>;
}

/** Pinned tool definitions, by (server workspace, server name, tool). */
export interface McpToolPinRepository {
  list(workspaceId: string, server: string): Promise<McpToolPin[]>;
  get(workspaceId: string, server: string, tool: string): Promise<McpToolPin | undefined>;
  /** Inserts pins not held yet; a pin already held is left as it is (two first listings at once keep one). */
  insertMissing(pins: McpToolPin[]): Promise<void>;
  /** Replaces a pin. */
  put(pin: McpToolPin): Promise<McpToolPin>;
  delete(workspaceId: string, server: string, tool?: string): Promise<number>;
}

/** Versioned records of a workspace (guardrails, configs). */
export interface VersionedRepository<T extends { workspace_id: string; id: string; version: number }> {
  get(workspaceId: string, id: string): Promise<T | undefined>;
  list(workspaceId: string): Promise<T[]>;
  /** Inserts a record of version 1; resolves to undefined when the id is taken in the workspace. */
  insert(record: T): Promise<T | undefined>;
  /**
   * Replaces a record and bumps its version. With `expectedVersion`, only when the stored version
   * is that one (optimistic concurrency); resolves to undefined when nothing was replaced.
   */
  replace(record: Omit<T, "version" | "created_at">, expectedVersion?: number): Promise<T | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

export interface PolicyRepository {
  /** Resolves to undefined when the id is taken. */
  create(record: Policy): Promise<Policy | undefined>;
  get(id: string): Promise<Policy | undefined>;
  /** `workspaceId` narrows to one workspace's own policies; `null` to organisation-wide ones. */
  list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Policy[]>;
  /** The policies that may apply to a workspace's requests: the organisation's and the workspace's own. */
  listApplying(organizationId: string, workspaceId: string): Promise<Policy[]>;
  update(
    id: string,
    patch: Patch<Policy, "name" | "mode" | "scope" | "input_guardrails" | "output_guardrails">,
    updatedAt: string,
  ): Promise<Policy | undefined>;
  delete(id: string): Promise<boolean>;
}

export interface ReplayReportRepository {
  /** Resolves to undefined when the id is taken. */
  create(record: ReplayReportRecord): Promise<ReplayReportRecord | undefined>;
  get(id: string): Promise<ReplayReportRecord | undefined>;
  /** Newest first; `workspaceId` narrows as for policies. */
  list(filter: { organizationId: string; workspaceId?: string | null }): Promise<ReplayReportRecord[]>;
  delete(id: string): Promise<boolean>;
}

export interface LogRepository {
  /** Writes records in one unit; a batch is all written or none. */
  insert(entries: NewLogEntry[]): Promise<void>;
  get(id: string): Promise<LogEntry | undefined>;
  /** Newest first, `filter.limit` at a time; `next_cursor` continues. */
  query(filter: LogFilter): Promise<LogPage>;
  /** Per-guardrail and per-check counts and latency percentiles over a time range. */
  aggregate(filter: LogFilter): Promise<GuardrailAggregate>;
  /** Spend recorded since a time, for budgets. */
  spend(filter: SpendFilter): Promise<number>;
}

/** Feedback on answers, by log id; a log may not be stored yet when its feedback comes. */
export interface FeedbackRepository {
  /** Inserts records; resolves to false (nothing written) when an id is taken. */
  insert(records: FeedbackRecord[]): Promise<boolean>;
  get(id: string): Promise<FeedbackRecord | undefined>;
  update(
    id: string,
    patch: Patch<FeedbackRecord, "value" | "weight" | "metadata">,
    updatedAt: string,
  ): Promise<FeedbackRecord | undefined>;
  /** The feedback on these logs, oldest first. */
  forLogs(logIds: readonly string[]): Promise<FeedbackRecord[]>;
}

/** Datasets made from logs, and their rows. */
export interface DatasetRepository {
  /** Resolves to undefined when the id is taken. */
  create(record: DatasetRecord): Promise<DatasetRecord | undefined>;
  get(id: string): Promise<DatasetRecord | undefined>;
  /** Newest first; `workspaceId` narrows to one workspace. */
  list(filter: { organizationId: string; workspaceId?: string }): Promise<DatasetRecord[]>;
  update(
    id: string,
    patch: Patch<DatasetRecord, "status" | "rows" | "positives" | "skipped">,
    updatedAt: string,
  ): Promise<DatasetRecord | undefined>;
  /** Writes rows in one unit. */
  appendRows(rows: DatasetRow[]): Promise<void>;
  /** Rows in order, `limit` at a time, from after position `after` (-1 for the first page). */
  rows(datasetId: string, page: { after: number; limit: number }): Promise<DatasetRow[]>;
  /** Sets the label of the row made from `logId`; resolves to its label before, undefined when there is no such row. */
  label(datasetId: string, logId: string, label: 0 | 1): Promise<0 | 1 | undefined>;
  /** Deletes the dataset with its rows. */
  delete(id: string): Promise<boolean>;
}

/** Evaluation runs and their reports. */
export interface EvalRunRepository {
  create(record: EvalRunRecord): Promise<EvalRunRecord | undefined>;
  get(id: string): Promise<EvalRunRecord | undefined>;
  /** Newest first; `workspaceId` narrows to one workspace. */
  list(filter: { organizationId: string; workspaceId?: string }): Promise<EvalRunRecord[]>;
  update(
    id: string,
    patch: Patch<EvalRunRecord, "status" | "error" | "report">,
    updatedAt: string,
  ): Promise<EvalRunRecord | undefined>;
}

/** Responses kept for the Responses API (`previous_response_id`, `/v1/responses/{id}`), by workspace. */
export interface StoredResponseRepository {
  /** Writes the record, replacing one with its id. */
  put(record: StoredResponse): Promise<void>;
  /** The workspace's response with this id; another workspace's is not found. */
  get(workspaceId: string, id: string): Promise<StoredResponse | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/** Small key-value facts about the store itself (e.g. the fingerprint of the secret key). */
export interface MetaRepository {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
}

/** The store: one repository per aggregate, a change feed, and its lifecycle. */
export interface Store {
  /** `sqlite`, `postgres`, …: for messages only. */
  readonly kind: string;
  /** Where the data lives, for messages (a file path, a host); never holds a password. */
  readonly location: string;
  readonly organizations: OrganizationRepository;
  readonly workspaces: WorkspaceRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly integrations: IntegrationRepository;
  readonly provisioning: ProvisioningRepository;
  readonly pluginIntegrations: PluginIntegrationRepository;
  readonly providers: ProviderRepository;
  readonly guardrails: VersionedRepository<GuardrailRecord>;
  readonly configs: VersionedRepository<StoredConfig>;
  readonly policies: PolicyRepository;
  readonly replayReports: ReplayReportRepository;
  readonly mcpServers: McpServerRepository;
  readonly mcpToolPins: McpToolPinRepository;
  readonly logs: LogRepository;
  readonly feedback: FeedbackRepository;
  readonly datasets: DatasetRepository;
  readonly evalRuns: EvalRunRepository;
  readonly storedResponses: StoredResponseRepository;
  readonly meta: MetaRepository;
  readonly changes: ChangeFeed;
  /**
   * Runs `work` as one transaction: all of its writes are kept, or none. For work that nothing
   * else writes beside (seeding the config file at start). A store without it cannot offer this.
   */
  atomically?<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` as one transaction that the store's instances run one at a time, each seeing what
   * the one before committed: for work two instances starting together must not both do (making
   * the first organization). A store without it has one instance only.
   */
  exclusively?<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
