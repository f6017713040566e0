/**
 * The management tables as both stores hold them: each column's codec and each table's default
 * order. Statements and row codecs of both dialects are produced from these (table.ts).
 *
 * The tables' DDL stays in the versioned migrations of each dialect (sqlite/migrations.ts,
 * postgres/migrations.ts), written out as SQL: a migration that has shipped is history, and DDL
 * generated from a description would change under a database that already ran it whenever the
 * description changed. The types, constraints and indexes also differ in ways a description would
 * have to spell out anyway (jsonb and GIN indexes, partitions, expression indexes). Instead, each
 * store's test compares these descriptions with the columns and types its migrations produce
 * (`Dialect.columnTypes`), so the two cannot drift apart.
 */
import type { DatasetRecord, DatasetRow, EvalRunRecord } from "../dataset-types.js";
import type { FeedbackRecord } from "../log-types.js";
import type { StoredResponse } from "../response-types.js";
import type {
  ApiKeyWithHash,
  GuardrailRecord,
  IntegrationWithSecret,
  McpServerWithSecret,
  McpToolPin,
  Organization,
  PluginIntegrationWithSecret,
  Policy,
  Provider,
  Provisioning,
  ReplayReportRecord,
  StoredConfig,
  Workspace,
} from "../types.js";
import type { ColumnKind, TableDescription } from "./table.js";

export const ORGANIZATIONS: TableDescription<Organization> = {
  name: "organizations",
  columns: {
    id: "text",
    name: "text",
    plan: "text",
    guardrails_enabled: "bool",
    allow_workspace_integrations: "bool",
    settings: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const WORKSPACES: TableDescription<Workspace> = {
  name: "workspaces",
  columns: {
    id: "text",
    organization_id: "text",
    name: "text",
    settings: "json",
    rate_limit: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const API_KEYS: TableDescription<ApiKeyWithHash> = {
  name: "api_keys",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    name: "text",
    role: "text",
    hash: "text",
    hint: "text",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const INTEGRATIONS: TableDescription<IntegrationWithSecret> = {
  name: "integrations",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    slug: "text",
    name: "text",
    provider: "text",
    base_url: "text",
    allowed_models: "json",
    pricing: "json",
    auto_provision: "json",
    credentials_sealed: "text",
    has_credentials: "bool",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const PROVISIONING: TableDescription<Provisioning> = {
  name: "provisioning",
  columns: {
    integration_id: "text",
    workspace_id: "text",
    budget: "json",
    rate_limit: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at"],
};

/** The stored columns of a plugin integration; `workspaces` lives in its own table unless it is all. */
export type PluginIntegrationRow = Omit<PluginIntegrationWithSecret, "workspaces"> & { all_workspaces: boolean };

export const PLUGIN_INTEGRATIONS: TableDescription<PluginIntegrationRow> = {
  name: "plugin_integrations",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    plugin: "text",
    name: "text",
    all_workspaces: "bool",
    credentials_sealed: "text",
    credential_keys: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["plugin", "created_at", "id"],
};

/** Which workspaces a plugin integration serves, when not all. */
export interface PluginMember {
  plugin_integration_id: string;
  workspace_id: string;
}

export const PLUGIN_MEMBERS: TableDescription<PluginMember> = {
  name: "plugin_integration_workspaces",
  columns: { plugin_integration_id: "text", workspace_id: "text" },
  order: ["workspace_id"],
};

export const PROVIDERS: TableDescription<Provider> = {
  name: "providers",
  columns: {
    id: "text",
    workspace_id: "text",
    slug: "text",
    name: "text",
    integration_id: "text",
    budget: "json",
    rate_limit: "json",
    allowed_models: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "slug"],
};

export const GUARDRAILS: TableDescription<GuardrailRecord> = {
  name: "guardrails",
  columns: {
    workspace_id: "text",
    id: "text",
    name: "text",
    definition: "json",
    version: "int",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const CONFIGS: TableDescription<StoredConfig> = {
  name: "configs",
  columns: {
    workspace_id: "text",
    id: "text",
    name: "text",
    config: "json",
    version: "int",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const POLICIES: TableDescription<Policy> = {
  name: "policies",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    name: "text",
    mode: "text",
    scope: "json",
    input_guardrails: "json",
    output_guardrails: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const REPLAY_REPORTS: TableDescription<ReplayReportRecord> = {
  name: "replay_reports",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    name: "text",
    report: "json",
    created_at: "text",
  },
  order: ["created_at DESC", "id DESC"],
};

export const LOG_FEEDBACK: TableDescription<FeedbackRecord> = {
  name: "log_feedback",
  columns: {
    id: "text",
    log_id: "text",
    organization_id: "text",
    workspace_id: "text",
    value: "int",
    weight: "real",
    metadata: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "id"],
};

export const DATASETS: TableDescription<DatasetRecord> = {
  name: "datasets",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    name: "text",
    filter: "json",
    label_rule: "text",
    status: "text",
    rows: "int",
    positives: "int",
    skipped: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at DESC", "id DESC"],
};

export const DATASET_ROWS: TableDescription<DatasetRow> = {
  name: "dataset_rows",
  columns: {
    dataset_id: "text",
    seq: "int",
    log_id: "text",
    input: "text",
    output: "text",
    verdicts: "json",
    failed_checks: "json",
    feedback: "json",
    label: "smallint",
  },
  order: ["seq"],
};

export const EVAL_RUNS: TableDescription<EvalRunRecord> = {
  name: "eval_runs",
  columns: {
    id: "text",
    organization_id: "text",
    workspace_id: "text",
    name: "text",
    status: "text",
    error: "text",
    report: "json",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at DESC", "id DESC"],
};

export const STORED_RESPONSES: TableDescription<StoredResponse> = {
  name: "stored_responses",
  columns: {
    id: "text",
    workspace_id: "text",
    previous_response_id: "text",
    input: "json",
    response: "json",
    created_at: "text",
  },
  order: ["created_at", "id"],
};

export const MCP_SERVERS: TableDescription<McpServerWithSecret> = {
  name: "mcp_servers",
  columns: {
    id: "text",
    workspace_id: "text",
    name: "text",
    transport: "text",
    url: "text",
    answers: "text",
    auth: "text",
    oauth: "json",
    header_names: "json",
    credentials_sealed: "text",
    has_credentials: "bool",
    trusted: "bool",
    tools: "json",
    pinning: "text",
    tool_pack: "text",
    created_at: "text",
    updated_at: "text",
  },
  order: ["created_at", "name"],
};

export const MCP_TOOL_PINS: TableDescription<McpToolPin> = {
  name: "mcp_tool_pins",
  columns: {
    workspace_id: "text",
    server: "text",
    tool: "text",
    status: "text",
    hash: "text",
    definition: "json",
    pending_hash: "text",
    pending_definition: "json",
    flagged_at: "text",
    created_at: "text",
    updated_at: "text",
  },
  order: ["tool"],
};

/** Every table described in full, for the tests that hold the descriptions to the migrated schemas. */
export const DESCRIBED_TABLES: readonly { readonly name: string; readonly columns: Readonly<Record<string, ColumnKind>> }[] = [
  ORGANIZATIONS,
  WORKSPACES,
  API_KEYS,
  INTEGRATIONS,
  PROVISIONING,
  PLUGIN_INTEGRATIONS,
  PLUGIN_MEMBERS,
  PROVIDERS,
  GUARDRAILS,
  CONFIGS,
  POLICIES,
  REPLAY_REPORTS,
  LOG_FEEDBACK,
  DATASETS,
  DATASET_ROWS,
  EVAL_RUNS,
  STORED_RESPONSES,
  MCP_SERVERS,
  MCP_TOOL_PINS,
];

/** Request-log rows as far as deleting an owner's logs goes (the logs have their own modules). */
export interface LogOwner {
  organization_id: string;
  workspace_id: string;
}

export const LOG_OWNERS: TableDescription<LogOwner> = {
  name: "request_logs",
  columns: { organization_id: "text", workspace_id: "text" },
  order: [],
};
