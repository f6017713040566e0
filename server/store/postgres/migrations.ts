/**
 * Versioned migrations of the Postgres store. They run at open under an advisory lock, so
 * instances starting together take turns and each migration runs once; each runs in a transaction
 * and is recorded in `schema_migrations`. A database written by a newer guardgate is refused rather
 * than misread. Append new migrations; never edit one that has shipped.
 */
import type pg from "pg";
import { StoreError } from "../errors.js";
import type { Migration } from "../sqlite/migrations.js";

/** The advisory lock key migrations hold (any fixed number, the same for every instance). */
const MIGRATION_LOCK = 0x67756172;

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "management model and request logs",
    sql: `
CREATE TABLE meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('developer', 'production', 'enterprise')),
  guardrails_enabled boolean NOT NULL,
  allow_workspace_integrations boolean NOT NULL,
  settings jsonb NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL
);

CREATE TABLE workspaces (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  settings jsonb NOT NULL,
  rate_limit jsonb,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX workspaces_organization ON workspaces(organization_id);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('org_admin', 'workspace_admin', 'member')),
  hash text NOT NULL UNIQUE,
  hint text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX api_keys_workspace ON api_keys(organization_id, workspace_id);

CREATE TABLE integrations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text REFERENCES workspaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  name text NOT NULL,
  provider text NOT NULL,
  base_url text,
  allowed_models jsonb NOT NULL,
  pricing jsonb NOT NULL,
  auto_provision jsonb,
  credentials_sealed text,
  has_credentials boolean NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  UNIQUE (organization_id, slug)
);

CREATE TABLE provisioning (
  integration_id text NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  budget jsonb,
  rate_limit jsonb,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  PRIMARY KEY (integration_id, workspace_id)
);
CREATE INDEX provisioning_workspace ON provisioning(workspace_id);

CREATE TABLE providers (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  slug text NOT NULL,
  name text NOT NULL,
  integration_id text NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
  budget jsonb,
  rate_limit jsonb,
  allowed_models jsonb NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  UNIQUE (workspace_id, slug)
);
CREATE INDEX providers_integration ON providers(integration_id);

CREATE TABLE guardrails (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  id text NOT NULL,
  name text NOT NULL,
  definition jsonb NOT NULL,
  version integer NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE configs (
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  id text NOT NULL,
  name text NOT NULL,
  config jsonb NOT NULL,
  version integer NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  PRIMARY KEY (workspace_id, id)
);

CREATE TABLE plugin_integrations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text REFERENCES workspaces(id) ON DELETE CASCADE,
  plugin text NOT NULL,
  name text NOT NULL,
  all_workspaces boolean NOT NULL,
  credentials_sealed text NOT NULL,
  credential_keys jsonb NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE UNIQUE INDEX plugin_integrations_scope ON plugin_integrations(organization_id, COALESCE(workspace_id, ''), plugin);

CREATE TABLE plugin_integration_workspaces (
  plugin_integration_id text NOT NULL REFERENCES plugin_integrations(id) ON DELETE CASCADE,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (plugin_integration_id, workspace_id)
);
CREATE INDEX plugin_integration_workspaces_workspace ON plugin_integration_workspaces(workspace_id);

-- The guardrail and check results of a log record in one compact jsonb array, one element per
-- guardrail: {"g": id, "s": side, "a": async, "v": verdict, "t": ms, "c": [{"id", "v", "e", "t"}]}.
-- One row per request instead of one per guardrail and per check: the filters are containment
-- tests on a GIN index, and the analytics unnest it. Computed here from the record's text, so the
-- gateway never parses a record it already encoded.
CREATE FUNCTION guardgate_log_hooks(record jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT COALESCE(jsonb_agg(jsonb_build_object(
      'g', h->>'id',
      's', side,
      'a', h->'async' = 'true'::jsonb,
      'v', h->'verdict' = 'true'::jsonb,
      't', CASE WHEN jsonb_typeof(h->'execution_time') = 'number' THEN (h->>'execution_time')::float8 ELSE 0 END,
      'c', (SELECT COALESCE(jsonb_agg(jsonb_build_object(
                'id', COALESCE(c->>'id', ''),
                'v', c->'verdict' = 'true'::jsonb,
                'e', c ? 'error',
                't', CASE WHEN jsonb_typeof(c->'execution_time') = 'number' THEN (c->>'execution_time')::float8 ELSE 0 END
              ) ORDER BY ci), '[]'::jsonb)
            FROM jsonb_array_elements(CASE WHEN jsonb_typeof(h->'checks') = 'array' THEN h->'checks' ELSE '[]'::jsonb END)
              WITH ORDINALITY AS checks(c, ci))
    ) ORDER BY side_order, hi), '[]'::jsonb)
  FROM (
    SELECT 'input' AS side, 0 AS side_order, h, hi
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(record->'hook_results'->'before_request_hooks') = 'array'
        THEN record->'hook_results'->'before_request_hooks' ELSE '[]'::jsonb END) WITH ORDINALITY AS a(h, hi)
    UNION ALL
    SELECT 'output', 1, h, hi
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(record->'hook_results'->'after_request_hooks') = 'array'
        THEN record->'hook_results'->'after_request_hooks' ELSE '[]'::jsonb END) WITH ORDINALITY AS b(h, hi)
  ) results
  WHERE jsonb_typeof(h) = 'object' AND jsonb_typeof(h->'id') = 'string'
$$;

-- Logs are history: no foreign keys, so writing one never waits on (or fails for) a record that
-- changed meanwhile. Partitioned by day (partitions are made as logs arrive, and dropped whole
-- past the retention period); the key holds the partition column, as Postgres requires.
CREATE TABLE request_logs (
  id text COLLATE "C" NOT NULL,
  created_at timestamptz NOT NULL,
  organization_id text,
  workspace_id text NOT NULL,
  api_key_id text,
  route text NOT NULL,
  request_type text,
  status integer NOT NULL,
  latency_ms double precision NOT NULL,
  upstream_latency_ms double precision,
  provider text,
  provider_id text,
  integration_id text,
  model text,
  config_id text,
  cache_status text,
  retry_count integer NOT NULL,
  target text,
  input_tokens integer,
  output_tokens integer,
  cost double precision,
  error_code text,
  hooks jsonb NOT NULL,
  record text NOT NULL,
  PRIMARY KEY (created_at, id)
) PARTITION BY RANGE (created_at);
CREATE INDEX request_logs_id ON request_logs(id);
CREATE INDEX request_logs_workspace_time ON request_logs(workspace_id, created_at DESC, id DESC);
CREATE INDEX request_logs_organization_time ON request_logs(organization_id, created_at DESC, id DESC);
CREATE INDEX request_logs_provider_spend ON request_logs(provider_id, created_at);
CREATE INDEX request_logs_integration_spend ON request_logs(integration_id, workspace_id, created_at);
CREATE INDEX request_logs_hooks ON request_logs USING gin (hooks jsonb_path_ops);
`,
  },
  {
    version: 2,
    name: "policies and replay reports",
    sql: `
CREATE TABLE policies (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('enforce', 'monitor')),
  scope jsonb NOT NULL,
  input_guardrails jsonb NOT NULL,
  output_guardrails jsonb NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX policies_owner ON policies(organization_id, workspace_id);

CREATE TABLE replay_reports (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  report jsonb NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX replay_reports_owner ON replay_reports(organization_id, workspace_id, created_at);
`,
  },
  {
    version: 3,
    name: "feedback on answers",
    sql: `
-- No foreign key to request_logs: feedback may come before the log writer has stored its record.
CREATE TABLE log_feedback (
  id text PRIMARY KEY,
  log_id text NOT NULL,
  organization_id text,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  value integer NOT NULL,
  weight double precision NOT NULL,
  metadata jsonb NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX log_feedback_log ON log_feedback(log_id, value);
`,
  },
  {
    version: 4,
    name: "datasets and evaluation runs",
    sql: `
CREATE TABLE datasets (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  filter jsonb NOT NULL,
  label_rule text,
  status text NOT NULL CHECK (status IN ('building', 'ready')),
  rows integer NOT NULL,
  positives integer NOT NULL,
  skipped jsonb NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX datasets_owner ON datasets(organization_id, workspace_id, created_at);

CREATE TABLE dataset_rows (
  dataset_id text NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
  seq integer NOT NULL,
  log_id text NOT NULL,
  input text NOT NULL,
  output text,
  verdicts jsonb NOT NULL,
  failed_checks jsonb NOT NULL,
  feedback jsonb NOT NULL,
  label smallint NOT NULL,
  PRIMARY KEY (dataset_id, seq)
);
CREATE INDEX dataset_rows_log ON dataset_rows(dataset_id, log_id);

-- Evaluation runs of the admin API: running, then done with the report or failed with the reason.
CREATE TABLE eval_runs (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  error text,
  report jsonb,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX eval_runs_owner ON eval_runs(organization_id, workspace_id, created_at);
`,
  },
  {
    version: 5,
    name: "stored responses",
    sql: `
-- Responses answered through the chat form, kept for previous_response_id and /v1/responses/{id}.
CREATE TABLE stored_responses (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  previous_response_id text,
  input jsonb NOT NULL,
  response jsonb NOT NULL,
  created_at text NOT NULL
);
CREATE INDEX stored_responses_owner ON stored_responses(workspace_id, created_at);
`,
  },
  {
    version: 6,
    name: "MCP servers and pinned tool definitions",
    sql: `
CREATE TABLE mcp_servers (
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  transport text NOT NULL CHECK (transport IN ('streamable_http', 'sse')),
  url text NOT NULL,
  answers text,
  auth text NOT NULL,
  oauth jsonb,
  header_names jsonb NOT NULL,
  credentials_sealed text,
  has_credentials boolean NOT NULL,
  trusted boolean NOT NULL,
  tools jsonb NOT NULL,
  pinning text NOT NULL CHECK (pinning IN ('first_use', 'approval', 'off')),
  tool_pack text,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  UNIQUE (workspace_id, name)
);

-- Keyed by the server's workspace and name, not its id: servers of the config file (workspace '')
-- have pins too. A store server's pins go with it (the management service deletes them).
CREATE TABLE mcp_tool_pins (
  workspace_id text NOT NULL,
  server text NOT NULL,
  tool text NOT NULL,
  status text NOT NULL CHECK (status IN ('pinned', 'changed', 'unapproved')),
  hash text,
  definition jsonb,
  pending_hash text,
  pending_definition jsonb,
  flagged_at text,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  PRIMARY KEY (workspace_id, server, tool)
);
`,
  },
];

/** Applies the migrations the database has not seen, holding the migration lock; returns the versions applied. */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL
      )`);
      const applied = new Set(
        (await client.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((row) => row.version),
      );
      const latest = Math.max(0, ...migrations.map((m) => m.version));
      const newest = Math.max(0, ...applied);
      if (newest > latest) {
        throw new StoreError(
          "store_too_new",
          `the database is at schema version ${newest}, newer than this guardgate knows (${latest}); upgrade guardgate`,
        );
      }
      const done: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (applied.has(migration.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(migration.sql);
          await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())", [
            migration.version,
            migration.name,
          ]);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {});
          throw error;
        }
        done.push(migration.version);
      }
      return done;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
}
