/**
 * The repositories of the management model, written once for both SQL stores over a `Driver`
 * (table.ts): each method is one statement or one transaction, and each write is announced once
 * it is done — on SQLite to this process's feed, on Postgres to every instance.
 */
import type {
  ApiKeyRepository,
  ChangeEvent,
  IntegrationRepository,
  OrganizationRepository,
  ProviderRepository,
  ProvisioningRepository,
  VersionedRepository,
  WorkspaceRepository,
} from "../repository.js";
import type {
  ApiKey,
  ApiKeyWithHash,
  Integration,
  IntegrationWithSecret,
  Organization,
  Provider,
  Provisioning,
  Workspace,
} from "../types.js";
import { type Driver, Table, type TableDescription, type Work } from "./table.js";
import {
  API_KEYS,
  CONFIGS,
  GUARDRAILS,
  INTEGRATIONS,
  LOG_OWNERS,
  type LogOwner,
  ORGANIZATIONS,
  PROVIDERS,
  PROVISIONING,
  WORKSPACES,
} from "./tables.js";

/** Announces a finished write. */
export type Announce = (event: ChangeEvent) => void | Promise<void>;

function withoutSecret(record: IntegrationWithSecret): Integration {
  const { credentials_sealed: _sealed, ...integration } = record;
  return integration;
}

function withoutHash(record: ApiKeyWithHash): ApiKey {
  const { hash: _hash, ...key } = record;
  return key;
}

export class Organizations implements OrganizationRepository {
  readonly #table: Table<Organization>;
  readonly #logs: Table<LogOwner>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(ORGANIZATIONS, db.dialect);
    this.#logs = new Table(LOG_OWNERS, db.dialect);
  }

  async create(record: Organization): Promise<Organization> {
    await this.db.run(this.#table.insert(record));
    await this.announce({ entity: "organization", id: record.id });
    return record;
  }

  async get(id: string): Promise<Organization | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async list(): Promise<Organization[]> {
    return this.db.run(this.#table.many({}));
  }

  async update(id: string, patch: Partial<Organization>, updatedAt: string): Promise<Organization | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (record) await this.announce({ entity: "organization", id });
    return record;
  }

  /** Logs have no foreign keys (writing one never waits on a record), so they go by hand. */
  *#deleteWithLogs(id: string): Work<boolean> {
    yield* this.#logs.discard({ organization_id: id });
    return (yield* this.#table.discard({ id })) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.atomic(this.#deleteWithLogs(id));
    if (deleted) await this.announce({ entity: "organization", id });
    return deleted;
  }
}

export class Workspaces implements WorkspaceRepository {
  readonly #table: Table<Workspace>;
  readonly #logs: Table<LogOwner>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(WORKSPACES, db.dialect);
    this.#logs = new Table(LOG_OWNERS, db.dialect);
  }

  async create(record: Workspace): Promise<Workspace> {
    await this.db.run(this.#table.insert(record));
    await this.announce({ entity: "workspace", id: record.id, workspace_id: record.id });
    return record;
  }

  async get(id: string): Promise<Workspace | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async list(organizationId: string): Promise<Workspace[]> {
    return this.db.run(this.#table.many({ organization_id: organizationId }));
  }

  async update(id: string, patch: Partial<Workspace>, updatedAt: string): Promise<Workspace | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (record) await this.announce({ entity: "workspace", id, workspace_id: id });
    return record;
  }

  *#deleteWithLogs(id: string): Work<boolean> {
    yield* this.#logs.discard({ workspace_id: id });
    return (yield* this.#table.discard({ id })) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.atomic(this.#deleteWithLogs(id));
    if (deleted) await this.announce({ entity: "workspace", id, workspace_id: id });
    return deleted;
  }

  async count(): Promise<number> {
    return this.db.run(this.#table.count());
  }
}

export class ApiKeys implements ApiKeyRepository {
  readonly #table: Table<ApiKeyWithHash>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(API_KEYS, db.dialect);
  }

  async create(record: ApiKeyWithHash): Promise<ApiKey> {
    await this.db.run(this.#table.insert(record));
    await this.announce({ entity: "api_key", id: record.id, workspace_id: record.workspace_id });
    return withoutHash(record);
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const record = await this.db.run(this.#table.one({ id }));
    return record && withoutHash(record);
  }

  async findByHash(hash: string): Promise<ApiKeyWithHash | undefined> {
    return this.db.run(this.#table.one({ hash }));
  }

  async list(filter: { organizationId: string; workspaceId?: string }): Promise<ApiKey[]> {
    const where = { organization_id: filter.organizationId, workspace_id: filter.workspaceId };
    return (await this.db.run(this.#table.many(where))).map(withoutHash);
  }

  async update(id: string, patch: Partial<ApiKey>, updatedAt: string): Promise<ApiKey | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (!record) return undefined;
    await this.announce({ entity: "api_key", id, workspace_id: record.workspace_id });
    return withoutHash(record);
  }

  async delete(id: string): Promise<boolean> {
    const [record] = await this.db.run(this.#table.delete({ id }));
    if (record) await this.announce({ entity: "api_key", id, workspace_id: record.workspace_id });
    return record !== undefined;
  }
}

export class Integrations implements IntegrationRepository {
  readonly #table: Table<IntegrationWithSecret>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(INTEGRATIONS, db.dialect);
  }

  async create(record: IntegrationWithSecret): Promise<Integration> {
    await this.db.run(this.#table.insert(record));
    await this.announce({ entity: "integration", id: record.id, workspace_id: record.workspace_id });
    return withoutSecret(record);
  }

  async get(id: string): Promise<Integration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSecret(record);
  }

  async getWithSecret(id: string): Promise<IntegrationWithSecret | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async findBySlug(organizationId: string, slug: string): Promise<Integration | undefined> {
    const record = await this.db.run(this.#table.one({ organization_id: organizationId, slug }));
    return record && withoutSecret(record);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Integration[]> {
    const where = { organization_id: filter.organizationId, workspace_id: filter.workspaceId };
    return (await this.db.run(this.#table.many(where))).map(withoutSecret);
  }

  async update(id: string, patch: Partial<IntegrationWithSecret>, updatedAt: string): Promise<Integration | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (!record) return undefined;
    await this.announce({ entity: "integration", id, workspace_id: record.workspace_id });
    return withoutSecret(record);
  }

  async delete(id: string): Promise<boolean> {
    // Announced without a workspace: every workspace may have been provisioned with it.
    const deleted = (await this.db.run(this.#table.discard({ id }))) > 0;
    if (deleted) await this.announce({ entity: "integration", id });
    return deleted;
  }
}

export class ProvisioningRecords implements ProvisioningRepository {
  readonly #table: Table<Provisioning>;
  readonly #providers: Table<Provider>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(PROVISIONING, db.dialect);
    this.#providers = new Table(PROVIDERS, db.dialect);
  }

  async put(record: Provisioning): Promise<Provisioning> {
    const stored = await this.db.run(
      this.#table.upsert(record, ["integration_id", "workspace_id"], ["budget", "rate_limit", "updated_at"]),
    );
    await this.announce({ entity: "provisioning", id: record.integration_id, workspace_id: record.workspace_id });
    return stored;
  }

  async get(integrationId: string, workspaceId: string): Promise<Provisioning | undefined> {
    return this.db.run(this.#table.one({ integration_id: integrationId, workspace_id: workspaceId }));
  }

  async list(filter: { integrationId?: string; workspaceId?: string }): Promise<Provisioning[]> {
    return this.db.run(this.#table.many({ integration_id: filter.integrationId, workspace_id: filter.workspaceId }));
  }

  /** A workspace's providers over the integration go with its provisioning. */
  *#deleteWithProviders(where: { integration_id: string; workspace_id: string }): Work<boolean> {
    yield* this.#providers.discard(where);
    return (yield* this.#table.discard(where)) > 0;
  }

  async delete(integrationId: string, workspaceId: string): Promise<boolean> {
    const where = { integration_id: integrationId, workspace_id: workspaceId };
    const deleted = await this.db.atomic(this.#deleteWithProviders(where));
    if (deleted) await this.announce({ entity: "provisioning", id: integrationId, workspace_id: workspaceId });
    return deleted;
  }
}

export class Providers implements ProviderRepository {
  readonly #table: Table<Provider>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(PROVIDERS, db.dialect);
  }

  async create(record: Provider): Promise<Provider> {
    await this.db.run(this.#table.insert(record));
    await this.announce({ entity: "provider", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Provider | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async findBySlug(workspaceId: string, slug: string): Promise<Provider | undefined> {
    return this.db.run(this.#table.one({ workspace_id: workspaceId, slug }));
  }

  async list(filter: { workspaceId?: string; integrationId?: string }): Promise<Provider[]> {
    return this.db.run(this.#table.many({ workspace_id: filter.workspaceId, integration_id: filter.integrationId }));
  }

  async update(id: string, patch: Partial<Provider>, updatedAt: string): Promise<Provider | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (record) await this.announce({ entity: "provider", id, workspace_id: record.workspace_id });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const [record] = await this.db.run(this.#table.delete({ id }));
    if (record) await this.announce({ entity: "provider", id, workspace_id: record.workspace_id });
    return record !== undefined;
  }
}

type VersionedRecord = { workspace_id: string; id: string; version: number; created_at: string };

/** Guardrail and config records: keyed by (workspace, id), versioned. */
export class Versioned<T extends VersionedRecord> implements VersionedRepository<T> {
  readonly #table: Table<T>;
  readonly #entity: "guardrail" | "config";

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
    kind: "guardrails" | "configs",
  ) {
    const description = kind === "guardrails" ? GUARDRAILS : CONFIGS;
    this.#table = new Table(description as unknown as TableDescription<T>, db.dialect);
    this.#entity = kind === "guardrails" ? "guardrail" : "config";
  }

  async get(workspaceId: string, id: string): Promise<T | undefined> {
    return this.db.run(this.#table.one({ workspace_id: workspaceId, id } as Partial<T>));
  }

  async list(workspaceId: string): Promise<T[]> {
    return this.db.run(this.#table.many({ workspace_id: workspaceId } as Partial<T>));
  }

  async insert(record: T): Promise<T | undefined> {
    if (!(await this.db.run(this.#table.insert(record, "ignore")))) return undefined;
    await this.announce({ entity: this.#entity, id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async replace(record: Omit<T, "version" | "created_at">, expectedVersion?: number): Promise<T | undefined> {
    // Version and creation time are the store's to keep, whatever the caller passed.
    const { workspace_id, id, version: _version, created_at: _created, ...fields } = record as unknown as T;
    const where = { workspace_id, id, version: expectedVersion } as Partial<T>;
    const replaced = await this.db.run(this.#table.update(where, fields as Partial<T>, "version"));
    if (replaced) await this.announce({ entity: this.#entity, id, workspace_id });
    return replaced;
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const deleted = (await this.db.run(this.#table.discard({ workspace_id: workspaceId, id } as Partial<T>))) > 0;
    if (deleted) await this.announce({ entity: this.#entity, id, workspace_id: workspaceId });
    return deleted;
  }
}
