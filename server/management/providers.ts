/**
 * AI providers (spec §2.6): workspace-level slugs over an integration. Over an organization
 * integration, the integration must be provisioned to the workspace, and the provider's budget,
 * rate limit and model list may only be stricter than the provisioning's. Over a workspace-only
 * integration, the workspace's own. The slug is also the legacy `virtual_key` (spec §9.3).
 */
import type { SchemaType } from "../schema-types.js";
import { conflict, invalid, notFound } from "../store/errors.js";
import type { Provider, Workspace } from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole } from "./actor.js";
import type { ManagementContext } from "./context.js";
import type { providerCreateSchema, providerUpdateSchema } from "./schemas.js";
import { newId } from "../store/ids.js";
import { assertNarrowerModels, assertStricterBudget, assertStricterRateLimit } from "./limit-rules.js";

/** Body of a provider create. */
export type ProviderInput = SchemaType<typeof providerCreateSchema>;

/** Body of a provider update. */
export type ProviderPatch = SchemaType<typeof providerUpdateSchema>;

export class Providers {
  constructor(private readonly ctx: ManagementContext) {}

  async #workspace(actor: Actor, workspaceId: string): Promise<Workspace> {
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    assertSeesWorkspace(actor, workspace, workspaceId);
    return workspace;
  }

  /** Checks a provider's limits against its integration and provisioning. */
  async #checkLimits(workspace: Workspace, integrationId: string, values: ProviderPatch, where: string): Promise<void> {
    const integration = await this.ctx.store.integrations.get(integrationId);
    if (!integration || integration.organization_id !== workspace.organization_id) {
      throw notFound(`integration "${integrationId}"`);
    }
    if (integration.workspace_id !== null && integration.workspace_id !== workspace.id) {
      throw notFound(`integration "${integrationId}"`);
    }
    const provisioning = await this.ctx.store.provisioning.get(integrationId, workspace.id);
    if (!provisioning) {
      throw invalid(
        `integration_id: integration "${integration.slug}" is not provisioned to workspace ${workspace.id}; an org admin provisions it first`,
        "not_provisioned",
      );
    }
    assertStricterBudget(values.budget, provisioning.budget, where);
    assertStricterRateLimit(values.rate_limit, provisioning.rate_limit, where);
    assertNarrowerModels(values.allowed_models, integration.allowed_models, where);
  }

  async create(actor: Actor, workspaceId: string, input: ProviderInput): Promise<Provider> {
    const workspace = await this.#workspace(actor, workspaceId);
    requireRole(actor, "workspace_admin", "creating a provider");
    await this.#checkLimits(workspace, input.integration_id, input, "provider");
    if (await this.ctx.store.providers.findBySlug(workspaceId, input.slug)) {
      throw conflict(`a provider with slug "${input.slug}" already exists in workspace ${workspaceId}`);
    }
    const now = this.ctx.now();
    return this.ctx.store.providers.create({
      id: newId("prv"),
      workspace_id: workspaceId,
      slug: input.slug,
      name: input.name ?? input.slug,
      integration_id: input.integration_id,
      budget: input.budget ?? null,
      rate_limit: input.rate_limit ?? null,
      allowed_models: input.allowed_models ?? "all",
      created_at: now,
      updated_at: now,
    });
  }

  /** A provider of a workspace by slug. */
  async get(actor: Actor, workspaceId: string, slug: string): Promise<Provider> {
    await this.#workspace(actor, workspaceId);
    const provider = await this.ctx.store.providers.findBySlug(workspaceId, slug);
    if (!provider) throw notFound(`provider "${slug}" in workspace "${workspaceId}"`);
    return provider;
  }

  async list(actor: Actor, workspaceId: string): Promise<Provider[]> {
    await this.#workspace(actor, workspaceId);
    return this.ctx.store.providers.list({ workspaceId });
  }

  async update(actor: Actor, workspaceId: string, slug: string, patch: ProviderPatch): Promise<Provider> {
    const provider = await this.get(actor, workspaceId, slug);
    requireRole(actor, "workspace_admin", "changing a provider");
    const workspace = await this.#workspace(actor, workspaceId);
    await this.#checkLimits(workspace, provider.integration_id, patch, "provider");
    const updated = await this.ctx.store.providers.update(provider.id, patch, this.ctx.now());
    if (!updated) throw notFound(`provider "${slug}" in workspace "${workspaceId}"`);
    return updated;
  }

  async delete(actor: Actor, workspaceId: string, slug: string): Promise<void> {
    const provider = await this.get(actor, workspaceId, slug);
    requireRole(actor, "workspace_admin", "deleting a provider");
    await this.ctx.store.providers.delete(provider.id);
  }
}
