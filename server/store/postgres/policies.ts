/**
 * The Postgres repositories of policies and saved replay reports: organisation records that a
 * workspace may own, each method one prepared statement, each policy write announced once committed.
 */
import type pg from "pg";
import type { PolicyRepository, ReplayReportRepository } from "../repository.js";
import type { Policy, ReplayReportRecord } from "../types.js";
import { type Announce, deleteAnnounced } from "./records.js";
import { PgTable, rows, run } from "./sql.js";

const policies = new PgTable<Policy>("policies", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  name: "plain",
  mode: "plain",
  scope: "json",
  input_guardrails: "json",
  output_guardrails: "json",
  created_at: "plain",
  updated_at: "plain",
});

const reports = new PgTable<ReplayReportRecord>("replay_reports", {
  id: "plain",
  organization_id: "plain",
  workspace_id: "plain",
  name: "plain",
  report: "json",
  created_at: "plain",
});

/** `AND workspace_id …` for an owner filter (parameter 2 when one is needed). */
function ownerClause(workspaceId: string | null | undefined): { sql: string; values: unknown[] } {
  if (workspaceId === undefined) return { sql: "", values: [] };
  if (workspaceId === null) return { sql: " AND workspace_id IS NULL", values: [] };
  return { sql: " AND workspace_id = $2", values: [workspaceId] };
}

export class PgPolicies implements PolicyRepository {
  constructor(
    private readonly db: pg.Pool,
    private readonly announce: Announce,
  ) {}

  async create(record: Policy): Promise<Policy | undefined> {
    const inserted = (await run(this.db, `${policies.insertSql} ON CONFLICT DO NOTHING`, policies.values(record))) > 0;
    if (!inserted) return undefined;
    await this.announce({ entity: "policy", id: record.id, workspace_id: record.workspace_id });
    return record;
  }

  async get(id: string): Promise<Policy | undefined> {
    const [row] = await rows(this.db, "SELECT * FROM policies WHERE id = $1", [id]);
    return row && policies.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<Policy[]> {
    const owner = ownerClause(filter.workspaceId);
    return (
      await rows(this.db, `SELECT * FROM policies WHERE organization_id = $1${owner.sql} ORDER BY created_at, id COLLATE "C"`, [
        filter.organizationId,
        ...owner.values,
      ])
    ).map((row) => policies.decode(row));
  }

  async listApplying(organizationId: string, workspaceId: string): Promise<Policy[]> {
    return (
      await rows(
        this.db,
        `SELECT * FROM policies WHERE organization_id = $1 AND (workspace_id IS NULL OR workspace_id = $2)
         ORDER BY created_at, id COLLATE "C"`,
        [organizationId, workspaceId],
      )
    ).map((row) => policies.decode(row));
  }

  async update(id: string, patch: Partial<Policy>, updatedAt: string): Promise<Policy | undefined> {
    const { sql, values } = policies.setClause({ ...patch, updated_at: updatedAt }, 2);
    const [row] = await rows(this.db, `UPDATE policies SET ${sql} WHERE id = $1 RETURNING *`, [id, ...values]);
    if (!row) return undefined;
    const record = policies.decode(row);
    await this.announce({ entity: "policy", id, workspace_id: record.workspace_id });
    return record;
  }

  async delete(id: string): Promise<boolean> {
    return deleteAnnounced(this.db, this.announce, "policies", "policy", id);
  }
}

/** Saved replay reports; nothing on the request path reads them, so they announce no change. */
export class PgReplayReports implements ReplayReportRepository {
  constructor(private readonly db: pg.Pool) {}

  async create(record: ReplayReportRecord): Promise<ReplayReportRecord | undefined> {
    const inserted = (await run(this.db, `${reports.insertSql} ON CONFLICT DO NOTHING`, reports.values(record))) > 0;
    return inserted ? record : undefined;
  }

  async get(id: string): Promise<ReplayReportRecord | undefined> {
    const [row] = await rows(this.db, "SELECT * FROM replay_reports WHERE id = $1", [id]);
    return row && reports.decode(row);
  }

  async list(filter: { organizationId: string; workspaceId?: string | null }): Promise<ReplayReportRecord[]> {
    const owner = ownerClause(filter.workspaceId);
    return (
      await rows(
        this.db,
        `SELECT * FROM replay_reports WHERE organization_id = $1${owner.sql} ORDER BY created_at DESC, id COLLATE "C" DESC`,
        [filter.organizationId, ...owner.values],
      )
    ).map((row) => reports.decode(row));
  }

  async delete(id: string): Promise<boolean> {
    return (await run(this.db, "DELETE FROM replay_reports WHERE id = $1", [id])) > 0;
  }
}
