/**
 * Organizations: plan and the guardrails flag are the operator's to set (spec §5); an
 * organization admin may rename it, change its defaults and allow workspace-only integrations.
 */
import type { SchemaType } from "../schema-types.js";
import { conflict, notFound } from "../store/errors.js";
import type { Organization } from "../store/types.js";
import { type Actor, requireOperator, requireRole, seesOrganization } from "./actor.js";
import type { ManagementContext } from "./context.js";
import type { organizationCreateSchema, organizationUpdateSchema } from "./schemas.js";
import { newId } from "../store/ids.js";

/** Body of an organization create. */
export type OrganizationInput = SchemaType<typeof organizationCreateSchema>;

/** Body of an organization update. */
export type OrganizationPatch = SchemaType<typeof organizationUpdateSchema>;

export class Organizations {
  constructor(private readonly ctx: ManagementContext) {}

  /** Creates an organization (operator only): developer plan, guardrails off, unless given. */
  async create(actor: Actor, input: OrganizationInput): Promise<Organization> {
    requireOperator(actor, "creating an organization");
    const id = input.id ?? newId("org");
    if (await this.ctx.store.organizations.get(id)) throw conflict(`organization "${id}" already exists`);
    const now = this.ctx.now();
    return this.ctx.store.organizations.create({
      id,
      name: input.name,
      plan: input.plan ?? "developer",
      guardrails_enabled: input.guardrails_enabled ?? false,
      allow_workspace_integrations: input.allow_workspace_integrations ?? false,
      settings: input.settings ?? {},
      created_at: now,
      updated_at: now,
    });
  }

  /** The organization, when the caller belongs to it. */
  async get(actor: Actor, id: string): Promise<Organization> {
    const organization = seesOrganization(actor, id) ? await this.ctx.store.organizations.get(id) : undefined;
    if (!organization) throw notFound(`organization "${id}"`);
    return organization;
  }

  /** The organizations the caller sees: all for the operator, its own for a key. */
  async list(actor: Actor): Promise<Organization[]> {
    if (actor.kind === "operator") return this.ctx.store.organizations.list();
    const own = await this.ctx.store.organizations.get(actor.organization_id);
    return own ? [own] : [];
  }

  async update(actor: Actor, id: string, patch: OrganizationPatch): Promise<Organization> {
    await this.get(actor, id);
    if (patch.plan !== undefined) requireOperator(actor, "changing the plan");
    if (patch.guardrails_enabled !== undefined) requireOperator(actor, "enabling or disabling guardrails");
    requireRole(actor, "org_admin", "changing the organization");
    const updated = await this.ctx.store.organizations.update(id, patch, this.ctx.now());
    if (!updated) throw notFound(`organization "${id}"`);
    return updated;
  }

  /** Deletes an organization with everything in it (operator only). */
  async delete(actor: Actor, id: string): Promise<void> {
    requireOperator(actor, "deleting an organization");
    if (!(await this.ctx.store.organizations.delete(id))) throw notFound(`organization "${id}"`);
  }
}
