/**
 * The SQLite repositories of the management model. better-sqlite3 is synchronous; the methods are
 * async to honour the repository interface, and each one is a single statement or a transaction.
 */
import type Database from "better-sqlite3";
import type { LocalChangeFeed } from "../change-feed.js";
import type {
  ApiKeyRepository,
  IntegrationRepository,
  OrganizationRepository,
  PluginIntegrationRepository,
  ProviderRepository,
  ProvisioningRepository,
  VersionedRepository,
  WorkspaceRepository,
} from "../repository.js";
import type {
  ApiKey,
  ApiKeyWithHash,
  GuardrailRecord,
  Integration,
  IntegrationWithSecret,
  Organization,
  PluginIntegration,
  PluginIntegrationWithSecret,
  Provider,
  Provisioning,
  StoredConfig,
  Workspace,
} from "../types.js";
import { RowCodec } from "./codec.js";

type Row = Record<string, unknown>;

const organizations = new RowCodec<Organization>({
  id: "text",
  name: "text",
  plan: "text",
  guardrails_enabled: "bool",
  allow_workspace_integrations: "bool",
  settings: "json",
  created_at: "text",
  updated_at: "text",
});

const workspaces = new RowCodec<Workspace>({
  id: "text",
  organization_id: "text",
  name: "text",
  settings: "json",
  rate_limit: "json",
  created_at: "text",
  updated_at: "text",
});

const apiKeys = new RowCodec<ApiKeyWithHash>({
  id: "text",
  organization_id: "text",
  workspace_id: "text",
  name: "text",
  role: "text",
  hash: "text",
  hint: "text",
  created_at: "text",
  updated_at: "text",
});

const integrations = new RowCodec<IntegrationWithSecret>({
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
});

const provisionings = new RowCodec<Provisioning>({
  integration_id: "text",
  workspace_id: "text",
  budget: "json",
  rate_limit: "json",
  created_at: "text",
  updated_at: "text",
});

/** The stored columns of a plugin integration; `workspaces` lives in its own table. */
type PluginIntegrationRow = Omit<PluginIntegrationWithSecret, "workspaces"> & { all_workspaces: boolean };

const pluginIntegrations = new RowCodec<PluginIntegrationRow>({
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
});

const providers = new RowCodec<Provider>({
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
});

const guardrails = new RowCodec<GuardrailRecord>({
  workspace_id: "text",
  id: "text",
  name: "text",
  definition: "json",
  version: "number",
  created_at: "text",
  updated_at: "text",
});

const configs = new RowCodec<StoredConfig>({
  workspace_id: "text",
  id: "text",
  name: "text",
  config: "json",
  version: "number",
  created_at: "text",
  updated_at: "text",
});

function withoutSecret(record: IntegrationWithSecret): Integration {
  const { credentials_sealed: _sealed, ...integration } = record;
  return integration;
}

function withoutSealed(record: PluginIntegrationWithSecret): PluginIntegration {
  const { credentials_sealed: _sealed, ...integration } = record;
  return integration;
}

function withoutHash(record: ApiKeyWithHash): ApiKey {
  const { hash: _hash, ...key } = record;
  return key;
}

/** Runs `UPDATE table SET … WHERE where` for a patch; resolves to whether a row changed. */
function applyPatch<T extends object>(
  db: Database.Database,
  codec: RowCodec<T>,
  table: string,
  where: { sql: string; params: Row },
  patch: Row,
  updatedAt: string,
): boolean {
  const { sql, params } = codec.setClause({ ...patch, updated_at: updatedAt });
  return db.prepare(`UPDATE ${table} SET ${sql} WHERE ${where.sql}`).run({ ...params, ...where.params }).changes > 0;
}

export class SqliteOrganizations implements OrganizationRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async create(record: Organization): Promise<Organization> {
    this.db.prepare(organizations.insertSql("organizations")).run(organizations.encode(record));
    this.feed.emit({ entity: "organization", id: record.id });
    return record;
  }

  async get(id: string): Promise<Organization | undefined> {
    const row = this.db.prepare("SELECT * FROM organizations WHERE id = ?").get(id) as Row | undefined;
    return row && organizations.decode(row);
  }

  async list(): Promise<Organization[]> {
    return (this.db.prepare("SELECT * FROM organizations ORDER BY created_at, id").all() as Row[]).map((r) =>
      organizations.decode(r),
    );
  }

  async update(id: string, patch: Partial<Organization>, updatedAt: string): Promise<Organization | undefined> {
    if (!applyPatch(this.db, organizations, "organizations", { sql: "id = @id", params: { id } }, patch, updatedAt))
      return undefined;
    this.feed.emit({ entity: "organization", id });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.db.prepare("DELETE FROM request_logs WHERE organization_id = ?").run(id);
      return this.db.prepare("DELETE FROM organizations WHERE id = ?").run(id).changes > 0;
    })();
    if (deleted) this.feed.emit({ entity: "organization", id });
    return deleted;
  }
}

export class SqliteWorkspaces implements WorkspaceRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async create(record: Workspace): Promise<Workspace> {
    this.db.prepare(workspaces.insertSql("workspaces")).run(workspaces.encode(record));
    this.feed.emit({ entity: "workspace", id: record.id, workspace_id: record.id });
    return record;
  }

  async get(id: string): Promise<Workspace | undefined> {
    const row = this.db.prepare("SELECT * FROM workspaces WHERE id = ?").get(id) as Row | undefined;
    return row && workspaces.decode(row);
  }

  async list(organizationId: string): Promise<Workspace[]> {
    return (
      this.db.prepare("SELECT * FROM workspaces WHERE organization_id = ? ORDER BY created_at, id").all(organizationId) as Row[]
    ).map((r) => workspaces.decode(r));
  }

  async update(id: string, patch: Partial<Workspace>, updatedAt: string): Promise<Workspace | undefined> {
    if (!applyPatch(this.db, workspaces, "workspaces", { sql: "id = @id", params: { id } }, patch, updatedAt)) return undefined;
    this.feed.emit({ entity: "workspace", id, workspace_id: id });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.db.prepare("DELETE FROM request_logs WHERE workspace_id = ?").run(id);
      return this.db.prepare("DELETE FROM workspaces WHERE id = ?").run(id).changes > 0;
    })();
    if (deleted) this.feed.emit({ entity: "workspace", id, workspace_id: id });
    return deleted;
  }

  async count(): Promise<number> {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM workspaces").get() as { n: number }).n;
  }
}

export class SqliteApiKeys implements ApiKeyRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async create(record: ApiKeyWithHash): Promise<ApiKey> {
    this.db.prepare(apiKeys.insertSql("api_keys")).run(apiKeys.encode(record));
    this.feed.emit({ entity: "api_key", id: record.id, workspace_id: record.workspace_id });
    return withoutHash(record);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const row = this.db.prepare("SELECT * FROM api_keys WHERE id = ?").get(id) as Row | undefined;
    return row && withoutHash(apiKeys.decode(row));
  }

  async findByHash(hash: string): Promise<ApiKeyWithHash | undefined> {
    const row = this.db.prepare("SELECT * FROM api_keys WHERE hash = ?").get(hash) as Row | undefined;
    return row && apiKeys.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<ApiKey[]> {
    const rows =
      filter.workspaceId === undefined
        ? this.db.prepare("SELECT * FROM api_keys WHERE organization_id = ? ORDER BY created_at, id").all(filter.organizationId)
        : this.db
            .prepare("SELECT * FROM api_keys WHERE organization_id = ? AND workspace_id = ? ORDER BY created_at, id")
            .all(filter.organizationId, filter.workspaceId);
    return (rows as Row[]).map((r) => withoutHash(apiKeys.decode(r)));
  }

  async update(id: string, patch: Partial<ApiKey>, updatedAt: string): Promise<ApiKey | undefined> {
    if (!applyPatch(this.db, apiKeys, "api_keys", { sql: "id = @id", params: { id } }, patch, updatedAt)) return undefined;
    const key = await this.get(id);
    this.feed.emit({ entity: "api_key", id, workspace_id: key?.workspace_id ?? null });
    return key;
  }

  async delete(id: string): Promise<boolean> {
    const key = await this.get(id);
    const deleted = this.db.prepare("DELETE FROM api_keys WHERE id = ?").run(id).changes > 0;
    if (deleted) this.feed.emit({ entity: "api_key", id, workspace_id: key?.workspace_id ?? null });
    return deleted;
  }
}

export class SqliteIntegrations implements IntegrationRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async create(record: IntegrationWithSecret): Promise<Integration> {
    this.db.prepare(integrations.insertSql("integrations")).run(integrations.encode(record));
    this.feed.emit({ entity: "integration", id: record.id, workspace_id: record.workspace_id });
    return withoutSecret(record);
  }

  async get(id: string): Promise<Integration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSecret(record);
  }

  async getWithSecret(id: string): Promise<IntegrationWithSecret | undefined> {
    const row = this.db.prepare("SELECT * FROM integrations WHERE id = ?").get(id) as Row | undefined;
    return row && integrations.decode(row);
  }

  async findBySlug(organizationId: string, slug: string): Promise<Integration | undefined> {
    const row = this.db.prepare("SELECT * FROM integrations WHERE organization_id = ? AND slug = ?").get(organizationId, slug) as
      Row | undefined;
    return row && withoutSecret(integrations.decode(row));
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Integration[]> {
    let rows: unknown[];
    if (filter.workspaceId === undefined) {
      rows = this.db
        .prepare("SELECT * FROM integrations WHERE organization_id = ? ORDER BY created_at, id")
        .all(filter.organizationId);
    } else if (filter.workspaceId === null) {
      rows = this.db
        .prepare("SELECT * FROM integrations WHERE organization_id = ? AND workspace_id IS NULL ORDER BY created_at, id")
        .all(filter.organizationId);
    } else {
      rows = this.db
        .prepare("SELECT * FROM integrations WHERE organization_id = ? AND workspace_id = ? ORDER BY created_at, id")
        .all(filter.organizationId, filter.workspaceId);
    }
    return (rows as Row[]).map((r) => withoutSecret(integrations.decode(r)));
  }

  async update(id: string, patch: Partial<IntegrationWithSecret>, updatedAt: string): Promise<Integration | undefined> {
    if (!applyPatch(this.db, integrations, "integrations", { sql: "id = @id", params: { id } }, patch, updatedAt))
      return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "integration", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.db.prepare("DELETE FROM integrations WHERE id = ?").run(id).changes > 0;
    if (deleted) this.feed.emit({ entity: "integration", id });
    return deleted;
  }
}

export class SqliteProvisioning implements ProvisioningRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async put(record: Provisioning): Promise<Provisioning> {
    const row = provisionings.encode(record);
    this.db
      .prepare(
        `${provisionings.insertSql("provisioning")} ON CONFLICT (integration_id, workspace_id)
         DO UPDATE SET budget = excluded.budget, rate_limit = excluded.rate_limit, updated_at = excluded.updated_at`,
      )
      .run(row);
    this.feed.emit({ entity: "provisioning", id: record.integration_id, workspace_id: record.workspace_id });
    return (await this.get(record.integration_id, record.workspace_id))!;
  }

  async get(integrationId: string, workspaceId: string): Promise<Provisioning | undefined> {
    const row = this.db
      .prepare("SELECT * FROM provisioning WHERE integration_id = ? AND workspace_id = ?")
      .get(integrationId, workspaceId) as Row | undefined;
    return row && provisionings.decode(row);
  }

  async list(filter: { integrationId?: string; workspaceId?: string }): Promise<Provisioning[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.integrationId !== undefined) {
      where.push("integration_id = ?");
      params.push(filter.integrationId);
    }
    if (filter.workspaceId !== undefined) {
      where.push("workspace_id = ?");
      params.push(filter.workspaceId);
    }
    const sql = `SELECT * FROM provisioning ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at`;
    return (this.db.prepare(sql).all(...params) as Row[]).map((r) => provisionings.decode(r));
  }

  async delete(integrationId: string, workspaceId: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.db.prepare("DELETE FROM providers WHERE integration_id = ? AND workspace_id = ?").run(integrationId, workspaceId);
      return (
        this.db.prepare("DELETE FROM provisioning WHERE integration_id = ? AND workspace_id = ?").run(integrationId, workspaceId)
          .changes > 0
      );
    })();
    if (deleted) this.feed.emit({ entity: "provisioning", id: integrationId, workspace_id: workspaceId });
    return deleted;
  }
}

export class SqlitePluginIntegrations implements PluginIntegrationRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  #decode(row: Row): PluginIntegrationWithSecret {
    const { all_workspaces, ...record } = pluginIntegrations.decode(row);
    const workspaces = all_workspaces
      ? ("all" as const)
      : (this.db
          .prepare("SELECT workspace_id FROM plugin_integration_workspaces WHERE plugin_integration_id = ? ORDER BY workspace_id")
          .pluck()
          .all(record.id) as string[]);
    return { ...record, workspaces };
  }

  #writeWorkspaces(id: string, workspaces: PluginIntegration["workspaces"]): void {
    this.db.prepare("DELETE FROM plugin_integration_workspaces WHERE plugin_integration_id = ?").run(id);
    if (workspaces === "all") return;
    const insert = this.db.prepare(
      "INSERT INTO plugin_integration_workspaces (plugin_integration_id, workspace_id) VALUES (?, ?)",
    );
    for (const workspaceId of workspaces) insert.run(id, workspaceId);
  }

  async create(record: PluginIntegrationWithSecret): Promise<PluginIntegration | undefined> {
    const { workspaces, ...columns } = record;
    const created = this.db.transaction(() => {
      const inserted =
        this.db
          .prepare(`${pluginIntegrations.insertSql("plugin_integrations")} ON CONFLICT DO NOTHING`)
          .run(pluginIntegrations.encode({ ...columns, all_workspaces: workspaces === "all" })).changes > 0;
      if (inserted) this.#writeWorkspaces(record.id, workspaces);
      return inserted;
    })();
    if (!created) return undefined;
    this.feed.emit({ entity: "plugin_integration", id: record.id, workspace_id: record.workspace_id });
    return this.get(record.id);
  }

  async get(id: string): Promise<PluginIntegration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSealed(record);
  }

  async getWithSecret(id: string): Promise<PluginIntegrationWithSecret | undefined> {
    const row = this.db.prepare("SELECT * FROM plugin_integrations WHERE id = ?").get(id) as Row | undefined;
    return row && this.#decode(row);
  }

  async find(organizationId: string, workspaceId: string | null, plugin: string): Promise<PluginIntegration | undefined> {
    const row = this.db
      .prepare("SELECT * FROM plugin_integrations WHERE organization_id = ? AND COALESCE(workspace_id, '') = ? AND plugin = ?")
      .get(organizationId, workspaceId ?? "", plugin) as Row | undefined;
    return row && withoutSealed(this.#decode(row));
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<PluginIntegration[]> {
    let rows: unknown[];
    if (filter.workspaceId === undefined) {
      rows = this.db
        .prepare("SELECT * FROM plugin_integrations WHERE organization_id = ? ORDER BY plugin, created_at, id")
        .all(filter.organizationId);
    } else {
      rows = this.db
        .prepare(
          "SELECT * FROM plugin_integrations WHERE organization_id = ? AND COALESCE(workspace_id, '') = ? ORDER BY plugin, created_at, id",
        )
        .all(filter.organizationId, filter.workspaceId ?? "");
    }
    return (rows as Row[]).map((r) => withoutSealed(this.#decode(r)));
  }

  async listServing(organizationId: string, workspaceId: string): Promise<PluginIntegrationWithSecret[]> {
    const rows = this.db
      .prepare(
        `SELECT p.* FROM plugin_integrations p WHERE p.organization_id = ? AND (p.all_workspaces = 1 OR EXISTS (
           SELECT 1 FROM plugin_integration_workspaces w WHERE w.plugin_integration_id = p.id AND w.workspace_id = ?))
         ORDER BY p.plugin, p.id`,
      )
      .all(organizationId, workspaceId) as Row[];
    return rows.map((r) => this.#decode(r));
  }

  async update(
    id: string,
    patch: Partial<PluginIntegrationWithSecret>,
    updatedAt: string,
  ): Promise<PluginIntegration | undefined> {
    const { workspaces, ...columns } = patch;
    const changed = this.db.transaction(() => {
      const row: Row = { ...columns, ...(workspaces !== undefined && { all_workspaces: workspaces === "all" }) };
      if (!applyPatch(this.db, pluginIntegrations, "plugin_integrations", { sql: "id = @id", params: { id } }, row, updatedAt))
        return false;
      if (workspaces !== undefined) this.#writeWorkspaces(id, workspaces);
      return true;
    })();
    if (!changed) return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "plugin_integration", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.get(id);
    const deleted = this.db.prepare("DELETE FROM plugin_integrations WHERE id = ?").run(id).changes > 0;
    if (deleted) this.feed.emit({ entity: "plugin_integration", id, workspace_id: record?.workspace_id ?? null });
    return deleted;
  }
}

export class SqliteProviders implements ProviderRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async create(record: Provider): Promise<Provider> {
    this.db.prepare(providers.insertSql("providers")).run(providers.encode(record));
    this.feed.emit({ entity: "provider", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Provider | undefined> {
    const row = this.db.prepare("SELECT * FROM providers WHERE id = ?").get(id) as Row | undefined;
    return row && providers.decode(row);
  }

  async findBySlug(workspaceId: string, slug: string): Promise<Provider | undefined> {
    const row = this.db.prepare("SELECT * FROM providers WHERE workspace_id = ? AND slug = ?").get(workspaceId, slug) as
      Row | undefined;
    return row && providers.decode(row);
  }

  async list(filter: { workspaceId?: string; integrationId?: string }): Promise<Provider[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.workspaceId !== undefined) {
      where.push("workspace_id = ?");
      params.push(filter.workspaceId);
    }
    if (filter.integrationId !== undefined) {
      where.push("integration_id = ?");
      params.push(filter.integrationId);
    }
    const sql = `SELECT * FROM providers ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at, slug`;
    return (this.db.prepare(sql).all(...params) as Row[]).map((r) => providers.decode(r));
  }

  async update(id: string, patch: Partial<Provider>, updatedAt: string): Promise<Provider | undefined> {
    if (!applyPatch(this.db, providers, "providers", { sql: "id = @id", params: { id } }, patch, updatedAt)) return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "provider", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.get(id);
    const deleted = this.db.prepare("DELETE FROM providers WHERE id = ?").run(id).changes > 0;
    if (deleted) this.feed.emit({ entity: "provider", id, workspace_id: record?.workspace_id ?? null });
    return deleted;
  }
}

/** Guardrail and config records: keyed by (workspace, id), versioned. */
export class SqliteVersioned<
  T extends { workspace_id: string; id: string; version: number; created_at: string },
> implements VersionedRepository<T> {
  readonly #codec: RowCodec<T>;

  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
    private readonly table: "guardrails" | "configs",
  ) {
    this.#codec = (table === "guardrails" ? guardrails : configs) as unknown as RowCodec<T>;
  }

  #entity(): "guardrail" | "config" {
    return this.table === "guardrails" ? "guardrail" : "config";
  }

  async get(workspaceId: string, id: string): Promise<T | undefined> {
    const row = this.db.prepare(`SELECT * FROM ${this.table} WHERE workspace_id = ? AND id = ?`).get(workspaceId, id) as
      Row | undefined;
    return row && this.#codec.decode(row);
  }

  async list(workspaceId: string): Promise<T[]> {
    return (
      this.db.prepare(`SELECT * FROM ${this.table} WHERE workspace_id = ? ORDER BY created_at, id`).all(workspaceId) as Row[]
    ).map((r) => this.#codec.decode(r));
  }

  async insert(record: T): Promise<T | undefined> {
    const inserted =
      this.db.prepare(`${this.#codec.insertSql(this.table)} ON CONFLICT DO NOTHING`).run(this.#codec.encode(record)).changes > 0;
    if (!inserted) return undefined;
    this.feed.emit({ entity: this.#entity(), id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async replace(record: Omit<T, "version" | "created_at">, expectedVersion?: number): Promise<T | undefined> {
    // Version and creation time are the store's to keep, whatever the caller passed.
    const { workspace_id, id, version: _version, created_at: _created, ...fields } = record as Record<string, unknown>;
    const { sql, params } = this.#codec.setClause(fields);
    const versionGuard = expectedVersion === undefined ? "" : " AND version = @expected_version";
    const changed =
      this.db
        .prepare(
          `UPDATE ${this.table} SET ${sql}, version = version + 1 WHERE workspace_id = @k_workspace AND id = @k_id${versionGuard}`,
        )
        .run({
          ...params,
          k_workspace: workspace_id,
          k_id: id,
          ...(expectedVersion !== undefined && { expected_version: expectedVersion }),
        }).changes > 0;
    if (!changed) return undefined;
    this.feed.emit({ entity: this.#entity(), id: id as string, workspace_id: workspace_id as string });
    return this.get(workspace_id as string, id as string);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted =
      this.db.prepare(`DELETE FROM ${this.table} WHERE workspace_id = ? AND id = ?`).run(workspaceId, id).changes > 0;
    if (deleted) this.feed.emit({ entity: this.#entity(), id, workspace_id: workspaceId });
    return deleted;
  }
}
