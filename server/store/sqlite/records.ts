/**
 * The SQLite repositories of the management model, each over one or two `SqliteTable`s (table.ts).
 * better-sqlite3 is synchronous; the methods are async to honour the repository interface, and
 * each one is a single statement or a transaction. Every write is announced on the change feed.
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
import { SqliteTable } from "./table.js";

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

/** Request-log rows as far as deleting an owner's logs goes. */
type LogOwner = { organization_id: string; workspace_id: string };
const LOG_OWNERS = new RowCodec<LogOwner>({
  organization_id: "text",
  workspace_id: "text",
});

/** Which workspaces a plugin integration serves, when not all. */
type PluginMember = { plugin_integration_id: string; workspace_id: string };
const PLUGIN_MEMBERS = new RowCodec<PluginMember>({
  plugin_integration_id: "text",
  workspace_id: "text",
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

export class SqliteOrganizations implements OrganizationRepository {
  readonly #table: SqliteTable<Organization>;
  readonly #logs: SqliteTable<LogOwner>;

  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "organizations", organizations);
    this.#logs = new SqliteTable(db, "request_logs", LOG_OWNERS);
  }

  async create(record: Organization): Promise<Organization> {
    this.#table.insert(record);
    this.feed.emit({ entity: "organization", id: record.id });
    return record;
  }

  async get(id: string): Promise<Organization | undefined> {
    return this.#table.one({ id });
  }

  async list(): Promise<Organization[]> {
    return this.#table.many({});
  }

  async update(id: string, patch: Partial<Organization>, updatedAt: string): Promise<Organization | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    this.feed.emit({ entity: "organization", id });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.#logs.delete({ organization_id: id });
      return this.#table.delete({ id }) > 0;
    })();
    if (deleted) this.feed.emit({ entity: "organization", id });
    return deleted;
  }
}

export class SqliteWorkspaces implements WorkspaceRepository {
  readonly #table: SqliteTable<Workspace>;
  readonly #logs: SqliteTable<LogOwner>;

  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "workspaces", workspaces);
    this.#logs = new SqliteTable(db, "request_logs", LOG_OWNERS);
  }

  async create(record: Workspace): Promise<Workspace> {
    this.#table.insert(record);
    this.feed.emit({ entity: "workspace", id: record.id, workspace_id: record.id });
    return record;
  }

  async get(id: string): Promise<Workspace | undefined> {
    return this.#table.one({ id });
  }

  async list(organizationId: string): Promise<Workspace[]> {
    return this.#table.many({ organization_id: organizationId });
  }

  async update(id: string, patch: Partial<Workspace>, updatedAt: string): Promise<Workspace | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    this.feed.emit({ entity: "workspace", id, workspace_id: id });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.db.transaction(() => {
      this.#logs.delete({ workspace_id: id });
      return this.#table.delete({ id }) > 0;
    })();
    if (deleted) this.feed.emit({ entity: "workspace", id, workspace_id: id });
    return deleted;
  }

  async count(): Promise<number> {
    return this.#table.count();
  }
}

export class SqliteApiKeys implements ApiKeyRepository {
  readonly #table: SqliteTable<ApiKeyWithHash>;

  constructor(
    db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "api_keys", apiKeys);
  }

  async create(record: ApiKeyWithHash): Promise<ApiKey> {
    this.#table.insert(record);
    this.feed.emit({ entity: "api_key", id: record.id, workspace_id: record.workspace_id });
    return withoutHash(record);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const record = this.#table.one({ id });
    return record && withoutHash(record);
  }

  async findByHash(hash: string): Promise<ApiKeyWithHash | undefined> {
    return this.#table.one({ hash });
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<ApiKey[]> {
    return this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }).map(withoutHash);
  }

  async update(id: string, patch: Partial<ApiKey>, updatedAt: string): Promise<ApiKey | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    const key = await this.get(id);
    this.feed.emit({ entity: "api_key", id, workspace_id: key?.workspace_id ?? null });
    return key;
  }

  async delete(id: string): Promise<boolean> {
    const key = await this.get(id);
    const deleted = this.#table.delete({ id }) > 0;
    if (deleted) this.feed.emit({ entity: "api_key", id, workspace_id: key?.workspace_id ?? null });
    return deleted;
  }
}

export class SqliteIntegrations implements IntegrationRepository {
  readonly #table: SqliteTable<IntegrationWithSecret>;

  constructor(
    db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "integrations", integrations);
  }

  async create(record: IntegrationWithSecret): Promise<Integration> {
    this.#table.insert(record);
    this.feed.emit({ entity: "integration", id: record.id, workspace_id: record.workspace_id });
    return withoutSecret(record);
  }

  async get(id: string): Promise<Integration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSecret(record);
  }

  async getWithSecret(id: string): Promise<IntegrationWithSecret | undefined> {
    return this.#table.one({ id });
  }

  async findBySlug(organizationId: string, slug: string): Promise<Integration | undefined> {
    const record = this.#table.one({ organization_id: organizationId, slug });
    return record && withoutSecret(record);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Integration[]> {
    return this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }).map(withoutSecret);
  }

  async update(id: string, patch: Partial<IntegrationWithSecret>, updatedAt: string): Promise<Integration | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "integration", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = this.#table.delete({ id }) > 0;
    if (deleted) this.feed.emit({ entity: "integration", id });
    return deleted;
  }
}

export class SqliteProvisioning implements ProvisioningRepository {
  readonly #table: SqliteTable<Provisioning>;
  readonly #providers: SqliteTable<Provider>;

  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "provisioning", provisionings, "created_at");
    this.#providers = new SqliteTable(db, "providers", providers);
  }

  async put(record: Provisioning): Promise<Provisioning> {
    this.#table
      .statement(
        `${provisionings.insertSql("provisioning")} ON CONFLICT (integration_id, workspace_id)
         DO UPDATE SET budget = excluded.budget, rate_limit = excluded.rate_limit, updated_at = excluded.updated_at`,
      )
      .run(provisionings.encode(record));
    this.feed.emit({ entity: "provisioning", id: record.integration_id, workspace_id: record.workspace_id });
    return (await this.get(record.integration_id, record.workspace_id))!;
  }

  async get(integrationId: string, workspaceId: string): Promise<Provisioning | undefined> {
    return this.#table.one({ integration_id: integrationId, workspace_id: workspaceId });
  }

  async list(filter: { integrationId?: string; workspaceId?: string }): Promise<Provisioning[]> {
    return this.#table.many({ integration_id: filter.integrationId, workspace_id: filter.workspaceId });
  }

  async delete(integrationId: string, workspaceId: string): Promise<boolean> {
    const where = { integration_id: integrationId, workspace_id: workspaceId };
    const deleted = this.db.transaction(() => {
      this.#providers.delete(where);
      return this.#table.delete(where) > 0;
    })();
    if (deleted) this.feed.emit({ entity: "provisioning", id: integrationId, workspace_id: workspaceId });
    return deleted;
  }
}

export class SqlitePluginIntegrations implements PluginIntegrationRepository {
  readonly #table: SqliteTable<PluginIntegrationRow>;
  readonly #members: SqliteTable<PluginMember>;

  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "plugin_integrations", pluginIntegrations, "plugin, created_at, id");
    this.#members = new SqliteTable(db, "plugin_integration_workspaces", PLUGIN_MEMBERS, "workspace_id");
  }

  #withWorkspaces(row: PluginIntegrationRow): PluginIntegrationWithSecret {
    const { all_workspaces, ...record } = row;
    const workspaces = all_workspaces
      ? ("all" as const)
      : this.#members.many({ plugin_integration_id: record.id }).map((member) => member.workspace_id);
    return { ...record, workspaces };
  }

  #writeWorkspaces(id: string, workspaces: PluginIntegration["workspaces"]): void {
    this.#members.delete({ plugin_integration_id: id });
    if (workspaces === "all") return;
    for (const workspaceId of workspaces) this.#members.insert({ plugin_integration_id: id, workspace_id: workspaceId });
  }

  async create(record: PluginIntegrationWithSecret): Promise<PluginIntegration | undefined> {
    const { workspaces, ...columns } = record;
    const created = this.db.transaction(() => {
      const inserted = this.#table.insert({ ...columns, all_workspaces: workspaces === "all" }, { ignoreConflict: true });
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
    const row = this.#table.one({ id });
    return row && this.#withWorkspaces(row);
  }

  async find(organizationId: string, workspaceId: string | null, plugin: string): Promise<PluginIntegration | undefined> {
    const row = this.#table.one({ organization_id: organizationId, workspace_id: workspaceId, plugin });
    return row && withoutSealed(this.#withWorkspaces(row));
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<PluginIntegration[]> {
    return this.#table
      .many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId })
      .map((row) => withoutSealed(this.#withWorkspaces(row)));
  }

  async listServing(organizationId: string, workspaceId: string): Promise<PluginIntegrationWithSecret[]> {
    const rows = this.#table
      .statement(
        `SELECT p.* FROM plugin_integrations p WHERE p.organization_id = ? AND (p.all_workspaces = 1 OR EXISTS (
           SELECT 1 FROM plugin_integration_workspaces w WHERE w.plugin_integration_id = p.id AND w.workspace_id = ?))
         ORDER BY p.plugin, p.id`,
      )
      .all(organizationId, workspaceId) as Row[];
    return rows.map((row) => this.#withWorkspaces(pluginIntegrations.decode(row)));
  }

  async update(
    id: string,
    patch: Partial<PluginIntegrationWithSecret>,
    updatedAt: string,
  ): Promise<PluginIntegration | undefined> {
    const { workspaces, ...columns } = patch;
    const changed = this.db.transaction(() => {
      const row: Row = { ...columns, ...(workspaces !== undefined && { all_workspaces: workspaces === "all" }) };
      if (!this.#table.update({ id }, row, updatedAt)) return false;
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
    const deleted = this.#table.delete({ id }) > 0;
    if (deleted) this.feed.emit({ entity: "plugin_integration", id, workspace_id: record?.workspace_id ?? null });
    return deleted;
  }
}

export class SqliteProviders implements ProviderRepository {
  readonly #table: SqliteTable<Provider>;

  constructor(
    db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "providers", providers, "created_at, slug");
  }

  async create(record: Provider): Promise<Provider> {
    this.#table.insert(record);
    this.feed.emit({ entity: "provider", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Provider | undefined> {
    return this.#table.one({ id });
  }

  async findBySlug(workspaceId: string, slug: string): Promise<Provider | undefined> {
    return this.#table.one({ workspace_id: workspaceId, slug });
  }

  async list(filter: { workspaceId?: string; integrationId?: string }): Promise<Provider[]> {
    return this.#table.many({ workspace_id: filter.workspaceId, integration_id: filter.integrationId });
  }

  async update(id: string, patch: Partial<Provider>, updatedAt: string): Promise<Provider | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "provider", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.get(id);
    const deleted = this.#table.delete({ id }) > 0;
    if (deleted) this.feed.emit({ entity: "provider", id, workspace_id: record?.workspace_id ?? null });
    return deleted;
  }
}

/** Guardrail and config records: keyed by (workspace, id), versioned. */
export class SqliteVersioned<
  T extends { workspace_id: string; id: string; version: number; created_at: string },
> implements VersionedRepository<T> {
  readonly #codec: RowCodec<T>;
  readonly #table: SqliteTable<T>;
  readonly #entity: "guardrail" | "config";

  constructor(
    db: Database.Database,
    private readonly feed: LocalChangeFeed,
    private readonly name: "guardrails" | "configs",
  ) {
    this.#codec = (name === "guardrails" ? guardrails : configs) as unknown as RowCodec<T>;
    this.#table = new SqliteTable(db, name, this.#codec);
    this.#entity = name === "guardrails" ? "guardrail" : "config";
  }

  async get(workspaceId: string, id: string): Promise<T | undefined> {
    return this.#table.one({ workspace_id: workspaceId, id });
  }

  async list(workspaceId: string): Promise<T[]> {
    return this.#table.many({ workspace_id: workspaceId });
  }

  async insert(record: T): Promise<T | undefined> {
    if (!this.#table.insert(record, { ignoreConflict: true })) return undefined;
    this.feed.emit({ entity: this.#entity, id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async replace(record: Omit<T, "version" | "created_at">, expectedVersion?: number): Promise<T | undefined> {
    // Version and creation time are the store's to keep, whatever the caller passed.
    const { workspace_id, id, version: _version, created_at: _created, ...fields } = record as Record<string, unknown>;
    const { sql, params } = this.#codec.setClause(fields);
    const versionGuard = expectedVersion === undefined ? "" : " AND version = @expected_version";
    const changed =
      this.#table
        .statement(
          `UPDATE ${this.name} SET ${sql}, version = version + 1 WHERE workspace_id = @k_workspace AND id = @k_id${versionGuard}`,
        )
        .run({
          ...params,
          k_workspace: workspace_id,
          k_id: id,
          ...(expectedVersion !== undefined && { expected_version: expectedVersion }),
        }).changes > 0;
    if (!changed) return undefined;
    this.feed.emit({ entity: this.#entity, id: id as string, workspace_id: workspace_id as string });
    return this.get(workspace_id as string, id as string);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted = this.#table.delete({ workspace_id: workspaceId, id }) > 0;
    if (deleted) this.feed.emit({ entity: this.#entity, id, workspace_id: workspaceId });
    return deleted;
  }
}
