/**
 * Reading request logs: a workspace's admins read its logs, an organization's admins every
 * workspace's. A filter naming a workspace the caller cannot see answers 404, as any record would.
 */

import { type LogSummary, logSummary, logView } from "../logs/view.js";
import { forbidden, notFound } from "../store/errors.js";
import type { GuardrailAggregate, LogFilter, LogPage } from "../store/log-types.js";
import { type Actor, assertSeesWorkspace, requireRole } from "./actor.js";
import type { ManagementContext } from "./context.js";

export class Logs {
  constructor(private readonly ctx: ManagementContext) {}

  /** The filter narrowed to what the caller may read. */
  async #scoped(actor: Actor, filter: LogFilter): Promise<LogFilter> {
    requireRole(actor, "workspace_admin", "reading request logs");
    if (filter.workspace_id !== undefined) {
      const workspace = await this.ctx.store.workspaces.get(filter.workspace_id);
      assertSeesWorkspace(actor, workspace, filter.workspace_id);
    }
    if (actor.kind === "operator") return filter;
    if (actor.role === "org_admin") return { ...filter, organization_id: actor.organization_id };
    // A workspace admin's logs are its workspace's only (such a key always has one).
    if (actor.workspace_id === null) throw forbidden("reading request logs needs a workspace key or the org_admin role");
    return { ...filter, organization_id: actor.organization_id, workspace_id: actor.workspace_id };
  }

  /** A page of log summaries, newest first. */
  async query(actor: Actor, filter: LogFilter): Promise<{ items: LogSummary[]; next_cursor: string | null }> {
    const page: LogPage = await this.ctx.store.logs.query(await this.#scoped(actor, filter));
    return { items: page.items.map(logSummary), next_cursor: page.next_cursor };
  }

  /** The log view of one request (spec §2.5). */
  async get(actor: Actor, id: string): Promise<ReturnType<typeof logView>> {
    requireRole(actor, "workspace_admin", "reading request logs");
    const entry = await this.ctx.store.logs.get(id);
    const visible =
      entry !== undefined &&
      (actor.kind === "operator" ||
        (entry.organization_id === actor.organization_id &&
          (actor.role === "org_admin" || entry.workspace_id === actor.workspace_id)));
    if (!visible) throw notFound(`log "${id}"`);
    return logView(entry, await this.ctx.store.feedback.forLogs([id]));
  }

  /** Per-guardrail and per-check counts and latency percentiles. */
  async aggregate(actor: Actor, filter: LogFilter): Promise<GuardrailAggregate> {
    return this.ctx.store.logs.aggregate(await this.#scoped(actor, filter));
  }
}
