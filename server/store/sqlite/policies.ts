/**
 * The SQLite repositories of policies and saved replay reports: organisation records that a
 * workspace may own, each method one statement.
 */
import type Database from "better-sqlite3";
import type { LocalChangeFeed } from "../change-feed.js";
import type { PolicyRepository, ReplayReportRepository } from "../repository.js";
import type { Policy, ReplayReportRecord } from "../types.js";
import { RowCodec } from "./codec.js";

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

/** `AND workspace_id …` for an owner filter: a workspace, organisation-wide (null), or any (undefined). */
function ownerClause(workspaceId: string | null | undefined): { sql: string; params: unknown[] } {
  if (workspaceId === undefined) return { sql: "", params: [] };
  if (workspaceId === null) return { sql: " AND workspace_id IS NULL", params: [] };
  return { sql: " AND workspace_id = ?", params: [workspaceId] };
}

export class SqlitePolicies implements PolicyRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly feed: LocalChangeFeed,
  ) {}

  async create(record: Policy): Promise<Policy | undefined> {
    const inserted =
      this.db.prepare(`${policies.insertSql("policies")} ON CONFLICT DO NOTHING`).run(policies.encode(record)).changes > 0;
    if (!inserted) return undefined;
    this.feed.emit({ entity: "policy", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Policy | undefined> {
    const row = this.db.prepare("SELECT * FROM policies WHERE id = ?").get(id) as Row | undefined;
    return row && policies.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Policy[]> {
    const owner = ownerClause(filter.workspaceId);
    return (
      this.db
        .prepare(`SELECT * FROM policies WHERE organization_id = ?${owner.sql} ORDER BY created_at, id`)
        .all(filter.organizationId, ...owner.params) as Row[]
    ).map((row) => policies.decode(row));
  }

  async listApplying(organizationId: string, workspaceId: string): Promise<Policy[]> {
    return (
      this.db
        .prepare(
          "SELECT * FROM policies WHERE organization_id = ? AND (workspace_id IS NULL OR workspace_id = ?) ORDER BY created_at, id",
        )
        .all(organizationId, workspaceId) as Row[]
    ).map((row) => policies.decode(row));
  }

  async update(id: string, patch: Partial<Policy>, updatedAt: string): Promise<Policy | undefined> {
    const { sql, params } = policies.setClause({ ...patch, updated_at: updatedAt });
    const changed = this.db.prepare(`UPDATE policies SET ${sql} WHERE id = @k_id`).run({ ...params, k_id: id }).changes > 0;
    if (!changed) return undefined;
    const record = await this.get(id);
    this.feed.emit({ entity: "policy", id, workspace_id: record?.workspace_id ?? null });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    const record = await this.get(id);
    const deleted = this.db.prepare("DELETE FROM policies WHERE id = ?").run(id).changes > 0;
    if (deleted) this.feed.emit({ entity: "policy", id, workspace_id: record?.workspace_id ?? null });
    return deleted;
  }
}

/** Saved replay reports; nothing on the request path reads them, so they announce no change. */
export class SqliteReplayReports implements ReplayReportRepository {
  constructor(private readonly db: Database.Database) {}

  async create(record: ReplayReportRecord): Promise<ReplayReportRecord | undefined> {
    const inserted =
      this.db.prepare(`${reports.insertSql("replay_reports")} ON CONFLICT DO NOTHING`).run(reports.encode(record)).changes > 0;
    return inserted ? record : undefined;
  }

  async get(id: string): Promise<ReplayReportRecord | undefined> {
    const row = this.db.prepare("SELECT * FROM replay_reports WHERE id = ?").get(id) as Row | undefined;
    return row && reports.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<ReplayReportRecord[]> {
    const owner = ownerClause(filter.workspaceId);
    return (
      this.db
        .prepare(`SELECT * FROM replay_reports WHERE organization_id = ?${owner.sql} ORDER BY created_at DESC, id DESC`)
        .all(filter.organizationId, ...owner.params) as Row[]
    ).map((row) => reports.decode(row));
  }

  async delete(id: string): Promise<boolean> {
    return this.db.prepare("DELETE FROM replay_reports WHERE id = ?").run(id).changes > 0;
  }
}
