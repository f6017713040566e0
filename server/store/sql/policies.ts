/**
 * Policies and saved replay reports for both SQL stores: organisation records that a workspace
 * may own, each method one statement, each policy write announced once done.
 */
import type { PolicyRepository, ReplayReportRepository } from "../repository.js";
import type { Policy, ReplayReportRecord } from "../types.js";
import type { Announce } from "./records.js";
import { type Driver, Query, Table } from "./table.js";
import { POLICIES, REPLAY_REPORTS } from "./tables.js";

export class Policies implements PolicyRepository {
  readonly #table: Table<Policy>;

  constructor(
    private readonly db: Driver,
    private readonly announce: Announce,
  ) {
    this.#table = new Table(POLICIES, db.dialect);
  }

  async create(record: Policy): Promise<Policy | undefined> {
    if (!(await this.db.run(this.#table.insert(record, "ignore")))) return undefined;
    await this.announce({ entity: "policy", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Policy | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Policy[]> {
    return this.db.run(this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }));
  }

  async listApplying(organizationId: string, workspaceId: string): Promise<Policy[]> {
    const table = this.#table;
    const q = new Query(this.db.dialect);
    const rest = ` WHERE organization_id = ${q.param(organizationId)} AND (workspace_id IS NULL OR workspace_id = ${q.param(workspaceId)})
      ORDER BY ${table.orderBy(POLICIES.order)}`;
    return this.db.run(table.select(q, rest));
  }

  async update(id: string, patch: Partial<Policy>, updatedAt: string): Promise<Policy | undefined> {
    const record = await this.db.run(this.#table.update({ id }, { ...patch, updated_at: updatedAt }));
    if (record) await this.announce({ entity: "policy", id, workspace_id: record.workspace_id });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const [record] = await this.db.run(this.#table.delete({ id }));
    if (record) await this.announce({ entity: "policy", id, workspace_id: record.workspace_id });
    return record !== undefined;
  }
}

/** Saved replay reports; nothing on the request path reads them, so they announce no change. */
export class ReplayReports implements ReplayReportRepository {
  readonly #table: Table<ReplayReportRecord>;

  constructor(private readonly db: Driver) {
    this.#table = new Table(REPLAY_REPORTS, db.dialect);
  }

  async create(record: ReplayReportRecord): Promise<ReplayReportRecord | undefined> {
    return (await this.db.run(this.#table.insert(record, "ignore"))) ? record : undefined;
  }

  async get(id: string): Promise<ReplayReportRecord | undefined> {
    return this.db.run(this.#table.one({ id }));
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<ReplayReportRecord[]> {
    return this.db.run(this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId }));
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(this.#table.discard({ id }))) > 0;
  }
}
