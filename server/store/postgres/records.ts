/**
 * The Postgres repositories of the management model: each method is one prepared statement or one
 * transaction, and each write is announced through the change feed once it is committed.
 */
import type pg from "pg";
import type {
  ApiKeyRepository,
  ChangeEvent,
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
import { PgTable, rows, run, transaction } from "./sql.js";

type Row = Record<string, unknown>;

/** Announces a committed write to this process and to every other instance. */
export type Announce = (event: ChangeEvent) => Promise<void>;

/** Deletes the row of `id` from `table` and announces it with the workspace it held; says whether one went. */
export async function deleteAnnounced(
  db: pg.Pool,
  announce: Announce,
  table: string,
  entity: ChangeEvent["entity"],
  id: string,
): Promise<boolean> {
  const [row] = await rows<{ workspace_id: string | null }>(db, `DELETE FROM ${table} WHERE id = $1 RETURNING workspace_id`, [
    id,
  ]);
  if (row) await announce({ entity, id, workspace_id: row.workspace_id });
  return row !== undefined;
}

const organizations = new PgTable<Organization>("organizations", {
  id: "plain",
  name: "plain",
  plan: "plain",
  guardrails_enabled: "plain",
  allow_workspace_integrations: "plain",
  settings: "json",
  created_at: "plain",
  updated_at: "plain",
});

const workspaces = new PgTable<Workspace>("workspaces", {
  id: "plain",
  organization_id: "plain",
  name: "plain",
  settings: "json",
  rate_limit: "json",
  created_at: "plain",
  updated_at: "plain",
});

const apiKeys = new PgTable<ApiKeyWithHash>("api_keys", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  name: "plain",
  role: "plain",
  hash: "plain",
  hint: "plain",
  created_at: "plain",
  updated_at: "plain",
});

const integrations = new PgTable<IntegrationWithSecret>("integrations", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  slug: "plain",
  name: "plain",
  provider: "plain",
  base_url: "plain",
  allowed_models: "json",
  pricing: "json",
  auto_provision: "json",
  credentials_sealed: "plain",
  has_credentials: "plain",
  created_at: "plain",
  updated_at: "plain",
});

const provisionings = new PgTable<Provisioning>("provisioning", {
  integration_id: "plain",
  workspace_id: "plain",
  budget: "json",
  rate_limit: "json",
  created_at: "plain",
  updated_at: "plain",
});

/** The stored columns of a plugin integration; `workspaces` lives in its own table. */
type PluginIntegrationRow = Omit<PluginIntegrationWithSecret, "workspaces"> & { all_workspaces: boolean };

const pluginIntegrations = new PgTable<PluginIntegrationRow>("plugin_integrations", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  plugin: "plain",
  name: "plain",
  all_workspaces: "plain",
  credentials_sealed: "plain",
  credential_keys: "json",
  created_at: "plain",
  updated_at: "plain",
});

const providers = new PgTable<Provider>("providers", {
  id: "plain",
  workspace_id: "plain",
  slug: "plain",
  name: "plain",
  integration_id: "plain",
  budget: "json",
  rate_limit: "json",
  allowed_models: "json",
  created_at: "plain",
  updated_at: "plain",
});

const guardrails = new PgTable<GuardrailRecord>("guardrails", {
  workspace_id: "plain",
  id: "plain",
  name: "plain",
  definition: "json",
  version: "plain",
  created_at: "plain",
  updated_at: "plain",
});

const configs = new PgTable<StoredConfig>("configs", {
  workspace_id: "plain",
  id: "plain",
  name: "plain",
  config: "json",
  version: "plain",
  created_at: "plain",
  updated_at: "plain",
});

/** Ids sort bytewise, as in the SQLite store, whatever the database's collation. */
const BY_TIME = `ORDER BY created_at, id COLLATE "C"`;

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

/** Runs `UPDATE table SET … WHERE id = $1` for a patch; resolves to whether a row changed. */
async function applyPatch<T extends object>(
  db: pg.Pool | pg.PoolClient,
  table: PgTable<T>,
  id: string,
  patch: Row,
  updatedAt: string,
): Promise<boolean> {
  const { sql, values } = table.setClause({ ...patch, updated_at: updatedAt }, 2);
  return (await run(db, `UPDATE ${table.name} SET ${sql} WHERE id = $1`, [id, ...values])) > 0;
}

async function one<T extends object>(db: pg.Pool, table: PgTable<T>, where: string, values: unknown[]): Promise<T | undefined> {
  const [row] = await rows(db, `SELECT * FROM ${table.name} WHERE ${where}`, values);
  return row && table.decode(row);
}

async function all<T extends object>(db: pg.Pool, table: PgTable<T>, sql: string, values: unknown[]): Promise<T[]> {
  return (await rows(db, `SELECT * FROM ${table.name} ${sql}`, values)).map((row) => table.decode(row));
}

export class PgOrganizations implements OrganizationRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async create(record: Organization): Promise<Organization> {
    await run(this.db, organizations.insertSql, organizations.values(record));
    await this.announce({ entity: "organization", id: record.id });
    return record;
  }

  async get(id: string): Promise<Organization | undefined> {
    return one(this.db, organizations, "id = $1", [id]);
  }

  async list(): Promise<Organization[]> {
    return all(this.db, organizations, BY_TIME, []);
  }

  async update(id: string, patch: Partial<Organization>, updatedAt: string): Promise<Organization | undefined> {
    if (!(await applyPatch(this.db, organizations, id, patch, updatedAt))) return undefined;
    await this.announce({ entity: "organization", id });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await transaction(this.db, async (client) => {
      await run(client, "DELETE FROM request_logs WHERE organization_id = $1", [id]);
      return (await run(client, "DELETE FROM organizations WHERE id = $1", [id])) > 0;
    });
    if (deleted) await this.announce({ entity: "organization", id });
    return deleted;
  }
}

export class PgWorkspaces implements WorkspaceRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async create(record: Workspace): Promise<Workspace> {
    await run(this.db, workspaces.insertSql, workspaces.values(record));
    await this.announce({ entity: "workspace", id: record.id, workspace_id: record.id });
    return record;
  }

  async get(id: string): Promise<Workspace | undefined> {
    return one(this.db, workspaces, "id = $1", [id]);
  }

  async list(organizationId: string): Promise<Workspace[]> {
    return all(this.db, workspaces, `WHERE organization_id = $1 ${BY_TIME}`, [organizationId]);
  }

  async update(id: string, patch: Partial<Workspace>, updatedAt: string): Promise<Workspace | undefined> {
    if (!(await applyPatch(this.db, workspaces, id, patch, updatedAt))) return undefined;
    await this.announce({ entity: "workspace", id, workspace_id: id });
    return this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await transaction(this.db, async (client) => {
      await run(client, "DELETE FROM request_logs WHERE workspace_id = $1", [id]);
      return (await run(client, "DELETE FROM workspaces WHERE id = $1", [id])) > 0;
    });
    if (deleted) await this.announce({ entity: "workspace", id, workspace_id: id });
    return deleted;
  }

  async count(): Promise<number> {
    const [row] = await rows<{ n: number }>(this.db, "SELECT COUNT(*) AS n FROM workspaces");
    return row?.n ?? 0;
  }
}

export class PgApiKeys implements ApiKeyRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async create(record: ApiKeyWithHash): Promise<ApiKey> {
    await run(this.db, apiKeys.insertSql, apiKeys.values(record));
    await this.announce({ entity: "api_key", id: record.id, workspace_id: record.workspace_id });
    return withoutHash(record);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const record = await one(this.db, apiKeys, "id = $1", [id]);
    return record && withoutHash(record);
  }

  async findByHash(hash: string): Promise<ApiKeyWithHash | undefined> {
    return one(this.db, apiKeys, "hash = $1", [hash]);
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<ApiKey[]> {
    const records =
      filter.workspaceId === undefined
        ? await all(this.db, apiKeys, `WHERE organization_id = $1 ${BY_TIME}`, [filter.organizationId])
        : await all(this.db, apiKeys, `WHERE organization_id = $1 AND workspace_id = $2 ${BY_TIME}`, [
            filter.organizationId,
            filter.workspaceId,
          ]);
    return records.map(withoutHash);
  }

  async update(id: string, patch: Partial<ApiKey>, updatedAt: string): Promise<ApiKey | undefined> {
    if (!(await applyPatch(this.db, apiKeys, id, patch, updatedAt))) return undefined;
    const key = await this.get(id);
    await this.announce({ entity: "api_key", id, workspace_id: key?.workspace_id ?? null });
    return key;
  }

  async delete(id: string): Promise<boolean> {
    return deleteAnnounced(this.db, this.announce, "api_keys", "api_key", id);
  }
}

export class PgIntegrations implements IntegrationRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async create(record: IntegrationWithSecret): Promise<Integration> {
    await run(this.db, integrations.insertSql, integrations.values(record));
    await this.announce({ entity: "integration", id: record.id, workspace_id: record.workspace_id });
    return withoutSecret(record);
  }

  async get(id: string): Promise<Integration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSecret(record);
  }

  async getWithSecret(id: string): Promise<IntegrationWithSecret | undefined> {
    return one(this.db, integrations, "id = $1", [id]);
  }

  async findBySlug(organizationId: string, slug: string): Promise<Integration | undefined> {
    const record = await one(this.db, integrations, "organization_id = $1 AND slug = $2", [organizationId, slug]);
    return record && withoutSecret(record);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Integration[]> {
    let records: IntegrationWithSecret[];
    if (filter.workspaceId === undefined) {
      records = await all(this.db, integrations, `WHERE organization_id = $1 ${BY_TIME}`, [filter.organizationId]);
    } else if (filter.workspaceId === null) {
      records = await all(this.db, integrations, `WHERE organization_id = $1 AND workspace_id IS NULL ${BY_TIME}`, [
        filter.organizationId,
      ]);
    } else {
      records = await all(this.db, integrations, `WHERE organization_id = $1 AND workspace_id = $2 ${BY_TIME}`, [
        filter.organizationId,
        filter.workspaceId,
      ]);
    }
    return records.map(withoutSecret);
  }

  async update(id: string, patch: Partial<IntegrationWithSecret>, updatedAt: string): Promise<Integration | undefined> {
    if (!(await applyPatch(this.db, integrations, id, patch, updatedAt))) return undefined;
    const record = await this.get(id);
    await this.announce({ entity: "integration", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = (await run(this.db, "DELETE FROM integrations WHERE id = $1", [id])) > 0;
    if (deleted) await this.announce({ entity: "integration", id });
    return deleted;
  }
}

export class PgProvisioning implements ProvisioningRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async put(record: Provisioning): Promise<Provisioning> {
    const [row] = await rows(
      this.db,
      `${provisionings.insertSql} ON CONFLICT (integration_id, workspace_id)
       DO UPDATE SET budget = excluded.budget, rate_limit = excluded.rate_limit, updated_at = excluded.updated_at RETURNING *`,
      provisionings.values(record),
    );
    await this.announce({ entity: "provisioning", id: record.integration_id, workspace_id: record.workspace_id });
    return provisionings.decode(row!);
  }

  async get(integrationId: string, workspaceId: string): Promise<Provisioning | undefined> {
    return one(this.db, provisionings, "integration_id = $1 AND workspace_id = $2", [integrationId, workspaceId]);
  }

  async list(filter: { integrationId?: string; workspaceId?: string }): Promise<Provisioning[]> {
    // A null parameter matches every row: one statement for the four combinations.
    return all(
      this.db,
      provisionings,
      "WHERE ($1::text IS NULL OR integration_id = $1) AND ($2::text IS NULL OR workspace_id = $2) ORDER BY created_at",
      [filter.integrationId ?? null, filter.workspaceId ?? null],
    );
  }

  async delete(integrationId: string, workspaceId: string): Promise<boolean> {
    const deleted = await transaction(this.db, async (client) => {
      await run(client, "DELETE FROM providers WHERE integration_id = $1 AND workspace_id = $2", [integrationId, workspaceId]);
      return (
        (await run(client, "DELETE FROM provisioning WHERE integration_id = $1 AND workspace_id = $2", [
          integrationId,
          workspaceId,
        ])) > 0
      );
    });
    if (deleted) await this.announce({ entity: "provisioning", id: integrationId, workspace_id: workspaceId });
    return deleted;
  }
}

/** The columns of a plugin integration with its served workspaces gathered in one array. */
const PLUGIN_SELECT = `SELECT p.*, ARRAY(SELECT w.workspace_id FROM plugin_integration_workspaces w
  WHERE w.plugin_integration_id = p.id ORDER BY w.workspace_id COLLATE "C") AS listed FROM plugin_integrations p`;

export class PgPluginIntegrations implements PluginIntegrationRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  #decode(row: Row): PluginIntegrationWithSecret {
    const { all_workspaces, ...record } = pluginIntegrations.decode(row);
    return { ...record, workspaces: all_workspaces ? "all" : (row.listed as string[]) };
  }

  async #select(where: string, values: unknown[]): Promise<PluginIntegrationWithSecret[]> {
    return (await rows(this.db, `${PLUGIN_SELECT} ${where}`, values)).map((row) => this.#decode(row));
  }

  async #writeWorkspaces(client: pg.PoolClient, id: string, workspaces: PluginIntegration["workspaces"]): Promise<void> {
    await run(client, "DELETE FROM plugin_integration_workspaces WHERE plugin_integration_id = $1", [id]);
    if (workspaces === "all" || workspaces.length === 0) return;
    await run(
      client,
      "INSERT INTO plugin_integration_workspaces (plugin_integration_id, workspace_id) SELECT $1, unnest($2::text[])",
      [id, workspaces],
    );
  }

  async create(record: PluginIntegrationWithSecret): Promise<PluginIntegration | undefined> {
    const { workspaces, ...columns } = record;
    const created = await transaction(this.db, async (client) => {
      const inserted =
        (await run(
          client,
          `${pluginIntegrations.insertSql} ON CONFLICT DO NOTHING`,
          pluginIntegrations.values({ ...columns, all_workspaces: workspaces === "all" }),
        )) > 0;
      if (inserted) await this.#writeWorkspaces(client, record.id, workspaces);
      return inserted;
    });
    if (!created) return undefined;
    await this.announce({ entity: "plugin_integration", id: record.id, workspace_id: record.workspace_id });
    return this.get(record.id);
  }

  async get(id: string): Promise<PluginIntegration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSealed(record);
  }

  async getWithSecret(id: string): Promise<PluginIntegrationWithSecret | undefined> {
    return (await this.#select("WHERE p.id = $1", [id]))[0];
  }

  async find(organizationId: string, workspaceId: string | null, plugin: string): Promise<PluginIntegration | undefined> {
    const [record] = await this.#select("WHERE p.organization_id = $1 AND COALESCE(p.workspace_id, '') = $2 AND p.plugin = $3", [
      organizationId,
      workspaceId ?? "",
      plugin,
    ]);
    return record && withoutSealed(record);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<PluginIntegration[]> {
    const records =
      filter.workspaceId === undefined
        ? await this.#select(`WHERE p.organization_id = $1 ORDER BY p.plugin COLLATE "C", p.created_at, p.id COLLATE "C"`, [
            filter.organizationId,
          ])
        : await this.#select(
            `WHERE p.organization_id = $1 AND COALESCE(p.workspace_id, '') = $2 ORDER BY p.plugin COLLATE "C", p.created_at, p.id COLLATE "C"`,
            [filter.organizationId, filter.workspaceId ?? ""],
          );
    return records.map(withoutSealed);
  }

  async listServing(organizationId: string, workspaceId: string): Promise<PluginIntegrationWithSecret[]> {
    return this.#select(
      `WHERE p.organization_id = $1 AND (p.all_workspaces OR EXISTS (
         SELECT 1 FROM plugin_integration_workspaces w WHERE w.plugin_integration_id = p.id AND w.workspace_id = $2))
       ORDER BY p.plugin COLLATE "C", p.id COLLATE "C"`,
      [organizationId, workspaceId],
    );
  }

  async update(
    id: string,
    patch: Partial<PluginIntegrationWithSecret>,
    updatedAt: string,
  ): Promise<PluginIntegration | undefined> {
    const { workspaces, ...columns } = patch;
    const changed = await transaction(this.db, async (client) => {
      const row: Row = { ...columns, ...(workspaces !== undefined && { all_workspaces: workspaces === "all" }) };
      if (!(await applyPatch(client, pluginIntegrations, id, row, updatedAt))) return false;
      if (workspaces !== undefined) await this.#writeWorkspaces(client, id, workspaces);
      return true;
    });
    if (!changed) return undefined;
    const record = await this.get(id);
    await this.announce({ entity: "plugin_integration", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    return deleteAnnounced(this.db, this.announce, "plugin_integrations", "plugin_integration", id);
  }
}

export class PgProviders implements ProviderRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async create(record: Provider): Promise<Provider> {
    await run(this.db, providers.insertSql, providers.values(record));
    await this.announce({ entity: "provider", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Provider | undefined> {
    return one(this.db, providers, "id = $1", [id]);
  }

  async findBySlug(workspaceId: string, slug: string): Promise<Provider | undefined> {
    return one(this.db, providers, "workspace_id = $1 AND slug = $2", [workspaceId, slug]);
  }

  async list(filter: { workspaceId?: string; integrationId?: string }): Promise<Provider[]> {
    return all(
      this.db,
      providers,
      `WHERE ($1::text IS NULL OR workspace_id = $1) AND ($2::text IS NULL OR integration_id = $2) ORDER BY created_at, slug COLLATE "C"`,
      [filter.workspaceId ?? null, filter.integrationId ?? null],
    );
  }

  async update(id: string, patch: Partial<Provider>, updatedAt: string): Promise<Provider | undefined> {
    if (!(await applyPatch(this.db, providers, id, patch, updatedAt))) return undefined;
    const record = await this.get(id);
    await this.announce({ entity: "provider", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    return deleteAnnounced(this.db, this.announce, "providers", "provider", id);
  }
}

/** Guardrail and config records: keyed by (workspace, id), versioned. */
export class PgVersioned<
  T extends { workspace_id: string; id: string; version: number; created_at: string },
> implements VersionedRepository<T> {
  readonly #table: PgTable<T>;
  readonly #entity: "guardrail" | "config";

  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
    table: "guardrails" | "configs",
  ) {
    this.#table = (table === "guardrails" ? guardrails : configs) as unknown as PgTable<T>;
    this.#entity = table === "guardrails" ? "guardrail" : "config";
  }

  async get(workspaceId: string, id: string): Promise<T | undefined> {
    return one(this.db, this.#table, "workspace_id = $1 AND id = $2", [workspaceId, id]);
  }

  async list(workspaceId: string): Promise<T[]> {
    return all(this.db, this.#table, `WHERE workspace_id = $1 ${BY_TIME}`, [workspaceId]);
  }

  async insert(record: T): Promise<T | undefined> {
    const inserted = (await run(this.db, `${this.#table.insertSql} ON CONFLICT DO NOTHING`, this.#table.values(record))) > 0;
    if (!inserted) return undefined;
    await this.announce({ entity: this.#entity, id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async replace(record: Omit<T, "version" | "created_at">, expectedVersion?: number): Promise<T | undefined> {
    // Version and creation time are the store's to keep, whatever the caller passed.
    const { workspace_id, id, version: _version, created_at: _created, ...fields } = record as Record<string, unknown>;
    const { sql, values } = this.#table.setClause(fields, 4);
    const [row] = await rows(
      this.db,
      `UPDATE ${this.#table.name} SET ${sql}, version = version + 1
       WHERE workspace_id = $1 AND id = $2 AND ($3::integer IS NULL OR version = $3) RETURNING *`,
      [workspace_id, id, expectedVersion ?? null, ...values],
    );
    if (!row) return undefined;
    await this.announce({ entity: this.#entity, id: id as string, workspace_id: workspace_id as string });
    return this.#table.decode(row);
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted =
      (await run(this.db, `DELETE FROM ${this.#table.name} WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])) > 0;
    if (deleted) await this.announce({ entity: this.#entity, id, workspace_id: workspaceId });
    return deleted;
  }
}
