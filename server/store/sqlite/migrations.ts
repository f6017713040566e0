/**
 * Versioned migrations of the SQLite store. Each runs once, in order, inside a transaction, and is
 * recorded in `schema_migrations`; a database written by a newer guardgate is refused rather than
 * misread. Append new migrations; never edit one that has shipped.
 */
import type Database from "better-sqlite3";
import { StoreError } from "../errors.js";

/** One migration. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "management model and request logs",
    sql: `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  plan TEXT NOT NULL CHECK (plan IN ('developer', 'production', 'enterprise')),
  guardrails_enabled INTEGER NOT NULL,
  allow_workspace_integrations INTEGER NOT NULL,
  settings TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  settings TEXT NOT NULL,
  rate_limit TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX workspaces_organization ON workspaces(organization_id);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('org_admin', 'workspace_admin', 'member')),
  hash TEXT NOT NULL UNIQUE,
  hint TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX api_keys_workspace ON api_keys(organization_id, workspace_id);

CREATE TABLE integrations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  provider TEXT NOT NULL,
  base_url TEXT,
  allowed_models TEXT NOT NULL,
  pricing TEXT NOT NULL,
  auto_provision TEXT,
  credentials_sealed TEXT,
  has_credentials INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (organization_id, slug)
);

CREATE TABLE provisioning (
  integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  budget TEXT,
  rate_limit TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (integration_id, workspace_id)
);
CREATE INDEX provisioning_workspace ON provisioning(workspace_id);

CREATE TABLE providers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  budget TEXT,
  rate_limit TEXT,
  allowed_models TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (workspace_id, slug)
);
CREATE INDEX providers_integration ON providers(integration_id);

CREATE TABLE guardrails (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE configs (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  config TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, id)
);

-- Logs are history: no foreign keys, so writing one never waits on (or fails for) a record that
-- changed meanwhile. Deleting a workspace deletes its logs explicitly.
CREATE TABLE request_logs (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  organization_id TEXT,
  workspace_id TEXT NOT NULL,
  api_key_id TEXT,
  route TEXT NOT NULL,
  request_type TEXT,
  status INTEGER NOT NULL,
  latency_ms REAL NOT NULL,
  upstream_latency_ms REAL,
  provider TEXT,
  provider_id TEXT,
  integration_id TEXT,
  model TEXT,
  config_id TEXT,
  cache_status TEXT,
  retry_count INTEGER NOT NULL,
  target TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  cost REAL,
  error_code TEXT,
  record TEXT NOT NULL
);
CREATE INDEX request_logs_workspace_time ON request_logs(workspace_id, created_at, id);
CREATE INDEX request_logs_organization_time ON request_logs(organization_id, created_at, id);
CREATE INDEX request_logs_time ON request_logs(created_at, id);
CREATE INDEX request_logs_provider_spend ON request_logs(provider_id, created_at);
CREATE INDEX request_logs_integration_spend ON request_logs(integration_id, workspace_id, created_at);

CREATE TABLE log_guardrails (
  log_id TEXT NOT NULL REFERENCES request_logs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  organization_id TEXT,
  workspace_id TEXT NOT NULL,
  guardrail_id TEXT NOT NULL,
  side TEXT NOT NULL,
  async INTEGER NOT NULL,
  deny INTEGER NOT NULL,
  verdict INTEGER NOT NULL,
  execution_time REAL NOT NULL,
  PRIMARY KEY (log_id, seq)
);
CREATE INDEX log_guardrails_guardrail ON log_guardrails(guardrail_id, created_at);

CREATE TABLE log_checks (
  log_id TEXT NOT NULL REFERENCES request_logs(id) ON DELETE CASCADE,
  guardrail_seq INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  organization_id TEXT,
  workspace_id TEXT NOT NULL,
  guardrail_id TEXT NOT NULL,
  check_id TEXT NOT NULL,
  verdict INTEGER NOT NULL,
  errored INTEGER NOT NULL,
  execution_time REAL NOT NULL,
  PRIMARY KEY (log_id, guardrail_seq, seq)
);
CREATE INDEX log_checks_check ON log_checks(check_id, created_at);
`,
  },
  {
    version: 2,
    name: "plugin integrations",
    sql: `
CREATE TABLE plugin_integrations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  plugin TEXT NOT NULL,
  name TEXT NOT NULL,
  all_workspaces INTEGER NOT NULL,
  credentials_sealed TEXT NOT NULL,
  credential_keys TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- One per plugin in the organization, and one per plugin in each workspace (NULLs are distinct in a
-- plain UNIQUE, hence the expression).
CREATE UNIQUE INDEX plugin_integrations_scope ON plugin_integrations(organization_id, COALESCE(workspace_id, ''), plugin);

-- The workspaces a plugin integration serves when it does not serve them all; rows go with the
-- workspace, so a workspace created later under the same id does not inherit them.
CREATE TABLE plugin_integration_workspaces (
  plugin_integration_id TEXT NOT NULL REFERENCES plugin_integrations(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (plugin_integration_id, workspace_id)
);
CREATE INDEX plugin_integration_workspaces_workspace ON plugin_integration_workspaces(workspace_id);
`,
  },
  {
    version: 3,
    name: "policies and replay reports",
    sql: `
CREATE TABLE policies (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('enforce', 'monitor')),
  scope TEXT NOT NULL,
  input_guardrails TEXT NOT NULL,
  output_guardrails TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX policies_owner ON policies(organization_id, workspace_id);

CREATE TABLE replay_reports (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  report TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX replay_reports_owner ON replay_reports(organization_id, workspace_id, created_at);
`,
  },
  {
    version: 4,
    name: "feedback on answers",
    sql: `
-- No foreign key to request_logs: feedback may come before the log writer has stored its record.
CREATE TABLE log_feedback (
  id TEXT PRIMARY KEY,
  log_id TEXT NOT NULL,
  organization_id TEXT,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  value INTEGER NOT NULL,
  weight REAL NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX log_feedback_log ON log_feedback(log_id, value);
`,
  },
  {
    version: 5,
    name: "datasets and evaluation runs",
    sql: `
CREATE TABLE datasets (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  filter TEXT NOT NULL,
  label_rule TEXT,
  status TEXT NOT NULL CHECK (status IN ('building', 'ready')),
  rows INTEGER NOT NULL,
  positives INTEGER NOT NULL,
  skipped TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX datasets_owner ON datasets(organization_id, workspace_id, created_at);

CREATE TABLE dataset_rows (
  dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  log_id TEXT NOT NULL,
  input TEXT NOT NULL,
  output TEXT,
  verdicts TEXT NOT NULL,
  failed_checks TEXT NOT NULL,
  feedback TEXT NOT NULL,
  label INTEGER NOT NULL,
  PRIMARY KEY (dataset_id, seq)
) WITHOUT ROWID;
CREATE INDEX dataset_rows_log ON dataset_rows(dataset_id, log_id);

-- Evaluation runs of the admin API: running, then done with the report or failed with the reason.
CREATE TABLE eval_runs (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  error TEXT,
  report TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX eval_runs_owner ON eval_runs(organization_id, workspace_id, created_at);
`,
  },
  {
    version: 6,
    name: "stored responses",
    sql: `
-- Responses answered through the chat form, kept for previous_response_id and /v1/responses/{id}.
CREATE TABLE stored_responses (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  previous_response_id TEXT,
  input TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX stored_responses_owner ON stored_responses(workspace_id, created_at);
`,
  },
  {
    version: 7,
    name: "MCP servers and pinned tool definitions",
    sql: `
CREATE TABLE mcp_servers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  transport TEXT NOT NULL CHECK (transport IN ('streamable_http', 'sse')),
  url TEXT NOT NULL,
  answers TEXT,
  auth TEXT NOT NULL,
  oauth TEXT,
  header_names TEXT NOT NULL,
  credentials_sealed TEXT,
  has_credentials INTEGER NOT NULL,
  trusted INTEGER NOT NULL,
  tools TEXT NOT NULL,
  pinning TEXT NOT NULL CHECK (pinning IN ('first_use', 'approval', 'off')),
  tool_pack TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (workspace_id, name)
);

-- Keyed by the server's workspace and name, not its id: servers of the config file (workspace '')
-- have pins too. A store server's pins go with it (the management service deletes them).
CREATE TABLE mcp_tool_pins (
  workspace_id TEXT NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pinned', 'changed', 'unapproved')),
  hash TEXT,
  definition TEXT,
  pending_hash TEXT,
  pending_definition TEXT,
  flagged_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, server, tool)
) WITHOUT ROWID;
`,
  },
];

/** Applies the migrations the database has not seen; returns the versions applied. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as Array<{ version: number }>).map((row) => row.version),
  );
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...applied);
  if (newest > latest) {
    throw new StoreError(
      "store_too_new",
      `the database is at schema version ${newest}, newer than this guardgate knows (${latest}); upgrade guardgate`,
    );
  }
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  const done: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    })();
    done.push(migration.version);
  }
  return done;
}
