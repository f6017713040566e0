/**
 * Plugin integrations for both SQL stores: one row each, plus the workspaces it serves in a table
 * of its own when it does not serve them all.
 */
import type { PluginIntegrationRepository } from "../repository.js";
import type { PluginIntegration, PluginIntegrationWithSecret } from "../types.js";
import type { Announce } from "./records.js";
import { type Driver, Query, Table, type Work } from "./table.js";
import { PLUGIN_INTEGRATIONS, PLUGIN_MEMBERS, type PluginIntegrationRow, type PluginMember } from "./tables.js";

function withoutSealed(record: PluginIntegrationWithSecret): PluginIntegration {
  const { credentials_sealed: _sealed, ...integration } = record;
  return integration;
}

export class PluginIntegrations implements PluginIntegrationRepository {
  readonly #table: Table<PluginIntegrationRow>;
  readonly #members: Table<PluginMember>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(PLUGIN_INTEGRATIONS, db.dialect);
    this.#members = new Table(PLUGIN_MEMBERS, db.dialect);
  }

  /** The records of the rows found, each with the workspaces it serves. */
  *#withWorkspaces(found: Work<PluginIntegrationRow[]>): Work<PluginIntegrationWithSecret[]> {
    const records: PluginIntegrationWithSecret[] = [];
    for (const { all_workspaces, ...row } of yield* found) {
      const members = all_workspaces ? [] : yield* this.#members.many({ plugin_integration_id: row.id });
      records.push({ ...row, workspaces: all_workspaces ? "all" : members.map((member) => member.workspace_id) });
    }
    return records;
  }

  *#writeWorkspaces(id: string, workspaces: PluginIntegration["workspaces"]): Work<void> {
    yield* this.#members.discard({ plugin_integration_id: id });
    if (workspaces === "all") return;
    for (const workspaceId of workspaces) yield* this.#members.insert({ plugin_integration_id: id, workspace_id: workspaceId });
  }

  *#select(where: Partial<PluginIntegrationRow>): Work<PluginIntegrationWithSecret[]> {
    return yield* this.#withWorkspaces(this.#table.many(where));
  }

  *#create(record: PluginIntegrationWithSecret): Work<boolean> {
    const { workspaces, ...columns } = record;
    const inserted = yield* this.#table.insert({ ...columns, all_workspaces: workspaces === "all" }, "ignore");
    if (inserted) yield* this.#writeWorkspaces(record.id, workspaces);
    return inserted;
  }

  *#update(id: string, patch: Partial<PluginIntegrationWithSecret>, updatedAt: string): Work<boolean> {
    const { workspaces, ...columns } = patch;
    const row = { ...columns, updated_at: updatedAt, ...(workspaces !== undefined && { all_workspaces: workspaces === "all" }) };
    if (!(yield* this.#table.update({ id }, row))) return false;
    if (workspaces !== undefined) yield* this.#writeWorkspaces(id, workspaces);
    return true;
  }

  async create(record: PluginIntegrationWithSecret): Promise<PluginIntegration | undefined> {
    if (!(await this.db.atomic(this.#create(record)))) return undefined;
    await this.announce({ entity: "plugin_integration", id: record.id, workspace_id: record.workspace_id });
    return this.get(record.id);
  }

  async get(id: string): Promise<PluginIntegration | undefined> {
    const record = await this.getWithSecret(id);
    return record && withoutSealed(record);
  }

  async getWithSecret(id: string): Promise<PluginIntegrationWithSecret | undefined> {
    return (await this.db.run(this.#select({ id })))[0];
  }

  async find(organizationId: string, workspaceId: string | null, plugin: string): Promise<PluginIntegration | undefined> {
    const [record] = await this.db.run(this.#select({ organization_id: organizationId, workspace_id: workspaceId, plugin }));
    return record && withoutSealed(record);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<PluginIntegration[]> {
    const records = await this.db.run(this.#select({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }));
    return records.map(withoutSealed);
  }

  async listServing(organizationId: string, workspaceId: string): Promise<PluginIntegrationWithSecret[]> {
    const table = this.#table;
    const q = new Query(this.db.dialect);
    const rest = ` p WHERE p.organization_id = ${q.param(organizationId)}
      AND (p.all_workspaces = ${q.param(table.encode("all_workspaces", true))} OR EXISTS (
        SELECT 1 FROM ${PLUGIN_MEMBERS.name} w WHERE w.plugin_integration_id = p.id AND w.workspace_id = ${q.param(workspaceId)}))
      ORDER BY ${table.orderBy(["plugin", "id"], "p.")}`;
    return this.db.run(this.#withWorkspaces(table.select(q, rest)));
  }

  async update(
    id: string,
    patch: Partial<PluginIntegrationWithSecret>,
    updatedAt: string,
  ): Promise<PluginIntegration | undefined> {
    if (!(await this.db.atomic(this.#update(id, patch, updatedAt)))) return undefined;
    const record = await this.get(id);
    await this.announce({ entity: "plugin_integration", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const [row] = await this.db.run(this.#table.delete({ id }));
    if (row) await this.announce({ entity: "plugin_integration", id, workspace_id: row.workspace_id });
    return row !== undefined;
  }
}
