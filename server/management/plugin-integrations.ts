/**
 * Plugin integrations (spec §1.7): the credentials of third-party guardrail services, held by the
 * service so checks of a plugin can call its service without a config carrying the key. An
 * organization's serves every workspace or the listed ones; a workspace's own (when the
 * organization allows workspace integrations) overrides the organization's in that workspace.
 * Credentials are validated against the plugin's credentials schema, sealed at rest, and never
 * returned: records name the keys held (`credential_keys`), not their values.
 */
import type { SchemaType } from "../schema-types.js";
import { conflict, invalid, notFound } from "../store/errors.js";
import type { PluginIntegration, PluginIntegrationWithSecret, WorkspaceSelection } from "../store/types.js";
import { type Actor, requireRole, seesOrganization } from "./actor.js";
import type { ManagementContext } from "./context.js";
import { asInvalid } from "./guardrails.js";
import type { pluginIntegrationCreateSchema, pluginIntegrationUpdateSchema } from "./schemas.js";
import { newId } from "../store/ids.js";
import { assertManagesIntegration, assertMayCreateIntegration } from "./integrations.js";

/** Credentials of a plugin integration, in the clear (only ever in memory). */
export type PluginCredentials = Record<string, unknown>;

/**
 * Body of a plugin integration create: `workspace_id` set for a workspace's own; `workspaces`, for
 * an organization's, the workspaces it serves (all by default).
 */
export type PluginIntegrationInput = SchemaType<typeof pluginIntegrationCreateSchema>;

/** Body of a plugin integration update. */
export type PluginIntegrationPatch = SchemaType<typeof pluginIntegrationUpdateSchema>;

/** The sealing context of a plugin integration's credentials: binds the ciphertext to the record. */
function sealingContext(id: string): string {
  return `plugin-integration:${id}`;
}

/** Opens a plugin integration's credentials. */
export function openPluginCredentials(ctx: ManagementContext, record: PluginIntegrationWithSecret): PluginCredentials {
  return JSON.parse(ctx.box.open(record.credentials_sealed, sealingContext(record.id))) as PluginCredentials;
}

/**
 * The credentials of every plugin with an integration serving a workspace, by plugin id: the
 * workspace's own wins over the organization's.
 */
export async function pluginCredentialsOf(
  ctx: ManagementContext,
  organizationId: string,
  workspaceId: string,
): Promise<Record<string, PluginCredentials>> {
  const serving = await ctx.store.pluginIntegrations.listServing(organizationId, workspaceId);
  const byPlugin: Record<string, PluginCredentials> = {};
  for (const record of serving) {
    if (record.workspace_id === null && serving.some((r) => r.plugin === record.plugin && r.workspace_id !== null)) continue;
    byPlugin[record.plugin] = openPluginCredentials(ctx, record);
  }
  return byPlugin;
}

export class PluginIntegrations {
  constructor(private readonly ctx: ManagementContext) {}

  /** Throws 400 naming the path unless the plugin is loaded and the credentials match its schema. */
  #validate(plugin: string, credentials: PluginCredentials): void {
    const registry = this.ctx.registry;
    if (!registry.hasPlugin(plugin)) {
      const loaded = registry
        .plugins()
        .map((p) => p.id)
        .join(", ");
      throw invalid(`plugin: "${plugin}" is not a loaded plugin (loaded: ${loaded})`, "unknown_plugin");
    }
    try {
      registry.validatePluginCredentials(plugin, credentials, "credentials");
    } catch (error) {
      throw asInvalid(error, `plugin "${plugin}"`);
    }
  }

  #seal(id: string, credentials: PluginCredentials): Pick<PluginIntegrationWithSecret, "credentials_sealed" | "credential_keys"> {
    return {
      credentials_sealed: this.ctx.box.seal(JSON.stringify(credentials), sealingContext(id)),
      credential_keys: Object.keys(credentials).sort(),
    };
  }

  /** Throws 404 unless every listed workspace is one of the organization's. */
  async #checkWorkspaces(organizationId: string, workspaces: WorkspaceSelection): Promise<void> {
    if (workspaces === "all") return;
    for (const [index, id] of workspaces.entries()) {
      const workspace = await this.ctx.store.workspaces.get(id);
      if (workspace?.organization_id !== organizationId) throw notFound(`workspaces[${index}]: workspace "${id}"`);
    }
  }

  #visible(actor: Actor, record: PluginIntegration): boolean {
    if (!seesOrganization(actor, record.organization_id)) return false;
    if (actor.kind === "operator" || actor.role === "org_admin") return true;
    if (actor.workspace_id === null) return false;
    if (record.workspace_id !== null) return record.workspace_id === actor.workspace_id;
    return record.workspaces === "all" || record.workspaces.includes(actor.workspace_id);
  }

  /** Loads a plugin integration the caller may see, or throws 404. */
  async get(actor: Actor, id: string): Promise<PluginIntegration> {
    const record = await this.ctx.store.pluginIntegrations.get(id);
    if (!record || !this.#visible(actor, record)) throw notFound(`plugin integration "${id}"`);
    return record;
  }

  /** Lists the plugin integrations the caller sees; `workspace_id` narrows to one workspace's own. */
  async list(actor: Actor, organizationId: string, filter: { workspace_id?: string | null } = {}): Promise<PluginIntegration[]> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    const all = await this.ctx.store.pluginIntegrations.list({
      organizationId,
      ...(filter.workspace_id !== undefined && { workspaceId: filter.workspace_id }),
    });
    return all.filter((record) => this.#visible(actor, record));
  }

  async create(actor: Actor, organizationId: string, input: PluginIntegrationInput): Promise<PluginIntegration> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    const organization = await this.ctx.store.organizations.get(organizationId);
    if (!organization) throw notFound(`organization "${organizationId}"`);
    const workspaceId = input.workspace_id ?? null;
    let workspaces: WorkspaceSelection = input.workspaces ?? "all";
    await assertMayCreateIntegration(this.ctx, actor, organization, workspaceId, "plugin integration");
    if (workspaceId === null) await this.#checkWorkspaces(organizationId, workspaces);
    else {
      if (input.workspaces !== undefined)
        throw invalid("workspaces: a workspace's own plugin integration serves that workspace only");
      workspaces = [workspaceId];
    }
    this.#validate(input.plugin, input.credentials);
    const id = newId("pin");
    const now = this.ctx.now();
    const created = await this.ctx.store.pluginIntegrations.create({
      id,
      organization_id: organizationId,
      workspace_id: workspaceId,
      plugin: input.plugin,
      name: input.name ?? input.plugin,
      workspaces,
      ...this.#seal(id, input.credentials),
      created_at: now,
      updated_at: now,
    });
    if (!created) {
      throw conflict(
        `${workspaceId === null ? `organization ${organizationId}` : `workspace ${workspaceId}`} already holds a plugin integration for plugin "${input.plugin}"; change that one`,
      );
    }
    return created;
  }

  async update(actor: Actor, id: string, patch: PluginIntegrationPatch): Promise<PluginIntegration> {
    const record = await this.get(actor, id);
    assertManagesIntegration(actor, record, "plugin integration");
    if (patch.workspaces !== undefined) {
      if (record.workspace_id !== null)
        throw invalid("workspaces: a workspace's own plugin integration serves that workspace only");
      requireRole(actor, "org_admin", "provisioning a plugin integration");
      await this.#checkWorkspaces(record.organization_id, patch.workspaces);
    }
    if (patch.credentials !== undefined) this.#validate(record.plugin, patch.credentials);
    const { credentials, ...rest } = patch;
    const updated = await this.ctx.store.pluginIntegrations.update(
      id,
      { ...rest, ...(credentials !== undefined && this.#seal(id, credentials)) },
      this.ctx.now(),
    );
    if (!updated) throw notFound(`plugin integration "${id}"`);
    return updated;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const record = await this.get(actor, id);
    assertManagesIntegration(actor, record, "plugin integration");
    await this.ctx.store.pluginIntegrations.delete(id);
  }
}
