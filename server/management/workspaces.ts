/**
 * Workspaces: created by organization admins, each provisioned at once with every integration set
 * to auto-provision. A workspace admin may rename its workspace and change its settings; its rate
 * limit is the organization admin's to set.
 */
import type { SchemaType } from "../schema-types.js";
import { conflict, notFound } from "../store/errors.js";
import type { Workspace, WorkspaceSettings } from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole, seesOrganization, seesWorkspace } from "./actor.js";
import type { ManagementContext } from "./context.js";
import type { workspaceCreateSchema, workspaceUpdateSchema } from "./schemas.js";
import { newId } from "../store/ids.js";
import { provisionToWorkspace } from "./integrations.js";

/** Body of a workspace create, less the organization, which the caller decides. */
export type WorkspaceInput = Omit<SchemaType<typeof workspaceCreateSchema>, "organization_id">;

/** Body of a workspace update. */
export type WorkspacePatch = SchemaType<typeof workspaceUpdateSchema>;

export class Workspaces {
  constructor(private readonly ctx: ManagementContext) {}

  async create(actor: Actor, organizationId: string, input: WorkspaceInput): Promise<Workspace> {
    if (!seesOrganization(actor, organizationId) || !(await this.ctx.store.organizations.get(organizationId))) {
      throw notFound(`organization "${organizationId}"`);
    }
    requireRole(actor, "org_admin", "creating a workspace");
    const id = input.id ?? newId("ws");
    if (await this.ctx.store.workspaces.get(id)) throw conflict(`workspace "${id}" already exists`);
    const now = this.ctx.now();
    const workspace = await this.ctx.store.workspaces.create({
      id,
      organization_id: organizationId,
      name: input.name,
      settings: input.settings ?? {},
      rate_limit: input.rate_limit ?? null,
      created_at: now,
      updated_at: now,
    });
    for (const integration of await this.ctx.store.integrations.list({ organizationId, workspaceId: null })) {
      if (integration.auto_provision) {
        await provisionToWorkspace(this.ctx, integration, id, integration.auto_provision);
      }
    }
    return workspace;
  }

  async get(actor: Actor, id: string): Promise<Workspace> {
    const workspace = await this.ctx.store.workspaces.get(id);
    assertSeesWorkspace(actor, workspace, id);
    return workspace;
  }

  /** The workspaces of an organization the caller sees. */
  async list(actor: Actor, organizationId: string): Promise<Workspace[]> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    return (await this.ctx.store.workspaces.list(organizationId)).filter((w) => seesWorkspace(actor, w));
  }

  async update(actor: Actor, id: string, patch: WorkspacePatch): Promise<Workspace> {
    await this.get(actor, id);
    requireRole(actor, patch.rate_limit !== undefined ? "org_admin" : "workspace_admin", "changing a workspace");
    const updated = await this.ctx.store.workspaces.update(id, patch, this.ctx.now());
    if (!updated) throw notFound(`workspace "${id}"`);
    return updated;
  }

  /** Deletes a workspace with its keys, providers, guardrails, configs and logs. */
  async delete(actor: Actor, id: string): Promise<void> {
    await this.get(actor, id);
    requireRole(actor, "org_admin", "deleting a workspace");
    await this.ctx.store.workspaces.delete(id);
  }

  /** The settings that apply in a workspace: the organization's defaults, then the workspace's own. */
  async effectiveSettings(workspace: Workspace): Promise<WorkspaceSettings> {
    const organization = await this.ctx.store.organizations.get(workspace.organization_id);
    return { ...(organization?.settings ?? {}), ...workspace.settings };
  }
}
