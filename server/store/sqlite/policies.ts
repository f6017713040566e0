/**
 * The SQLite repositories of policies and saved replay reports: organisation records that a
 * workspace may own, over the table helper; each method one statement.
 */
import type Database from "better-sqlite3";
import type { LocalChangeFeed } from "../change-feed.js";
import type { PolicyRepository, ReplayReportRepository } from "../repository.js";
import type { Policy, ReplayReportRecord } from "../types.js";
import { RowCodec } from "./codec.js";
import { SqliteTable } from "./table.js";

type Row = Record<string, unknown>;

const policies = new RowCodec<Policy>({
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
});

const reports = new RowCodec<ReplayReportRecord>({
  id: "text",
  organization_id: "text",
  workspace_id: "text",
  name: "text",
  report: "json",
  created_at: "text",
});

export class SqlitePolicies implements PolicyRepository {
  readonly #table: SqliteTable<Policy>;

  constructor(
    db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {
    this.#table = new SqliteTable(db, "policies", policies);
  }

  async create(record: Policy): Promise<Policy | undefined> {
    if (!this.#table.insert(record, { ignoreConflict: true })) return undefined;
    this.feed.emit({ entity: "policy", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Policy | undefined> {
    return this.#table.one({ id });
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Policy[]> {
    return this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId });
  }

  async listApplying(organizationId: string, workspaceId: string): Promise<Policy[]> {
    return (
      this.#table
        .statement(
          "SELECT * FROM policies WHERE organization_id = ? AND (workspace_id IS NULL OR workspace_id = ?) ORDER BY created_at, id",
        )
        .all(organizationId, workspaceId) as Row[]
    ).map((row) => policies.decode(row));
  }

  async update(id: string, patch: Partial<Policy>, updatedAt: string): Promise<Policy | undefined> {
    if (!this.#table.update({ id }, patch, updatedAt)) return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "policy", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.get(id);
    if (!this.#table.delete({ id })) return false;
    this.feed.emit({ entity: "policy", id, workspace_id: record?.workspace_id ?? null });
    return true;
  }
}

/** Saved replay reports; nothing on the request path reads them, so they announce no change. */
export class SqliteReplayReports implements ReplayReportRepository {
  readonly #table: SqliteTable<ReplayReportRecord>;

  constructor(db: Database.Database) {
    this.#table = new SqliteTable(db, "replay_reports", reports, "created_at DESC, id DESC");
  }

  async create(record: ReplayReportRecord): Promise<ReplayReportRecord | undefined> {
    return this.#table.insert(record, { ignoreConflict: true }) ? record : undefined;
  }

  async get(id: string): Promise<ReplayReportRecord | undefined> {
    return this.#table.one({ id });
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<ReplayReportRecord[]> {
    return this.#table.many({ organization_id: filter.organizationId, workspace_id: filter.workspaceId });
  }

  async delete(id: string): Promise<boolean> {
    return this.#table.delete({ id }) > 0;
  }
}
