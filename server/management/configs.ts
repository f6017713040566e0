/**
 * Saved configs (spec §2.3) of a workspace, versioned. A config is validated exactly as a request
 * would load it (gateway keys, then the guardrails of the root and of every target) and its
 * guardrails are gated by the plan before it is saved, so a broken config never reaches a request.
 * Answers mask inline check credentials; a save that sends the mask back keeps the stored value.
 */
import type { SchemaType } from "../schema-types.js";
import { conflict, invalid, notFound } from "../store/errors.js";
import type { Organization, StoredConfig } from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole } from "./actor.js";
import { validateConfig } from "./config-validation.js";
import type { ManagementContext } from "./context.js";
import { asInvalid, storeGuardrailSource } from "./guardrails.js";
import { restoreInlineCredentials, withoutInlineCredentials } from "./inline-credentials.js";
import { newId } from "../store/ids.js";
import { assertGuardrailsAllowed } from "./plans.js";
import type { configSchema } from "./schemas.js";

/** Body of a config save (`version`, on update: the version being replaced). */
export type ConfigInput = SchemaType<typeof configSchema>;

/** A config record as answers show it: inline credentials masked. */
function shown(record: StoredConfig): StoredConfig {
  return { ...record, config: withoutInlineCredentials(record.config) };
}

export class Configs {
  constructor(private readonly ctx: ManagementContext) {}

  async #organization(actor: Actor, workspaceId: string): Promise<Organization> {
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    assertSeesWorkspace(actor, workspace, workspaceId);
    const organization = await this.ctx.store.organizations.get(workspace.organization_id);
    if (!organization) throw notFound(`workspace "${workspaceId}"`);
    return organization;
  }

  async #validate(organization: Organization, workspaceId: string, id: string, config: Record<string, unknown>): Promise<void> {
    const where = `config "${id}"`;
    let guardrails: Awaited<ReturnType<typeof validateConfig>>;
    try {
      guardrails = await validateConfig(config, {
        registry: this.ctx.registry,
        source: storeGuardrailSource(this.ctx),
        workspaceId,
        ...(this.ctx.validateGatewayKeys && { validateGatewayKeys: this.ctx.validateGatewayKeys }),
      });
    } catch (error) {
      throw asInvalid(error, where);
    }
    assertGuardrailsAllowed(organization, guardrails, this.ctx.registry, where);
  }

  async create(actor: Actor, workspaceId: string, input: ConfigInput): Promise<StoredConfig> {
    const organization = await this.#organization(actor, workspaceId);
    requireRole(actor, "workspace_admin", "saving a config");
    const id = input.id ?? newId("cfg");
    const config = restoreInlineCredentials(input.config, undefined, `config "${id}"`, "config");
    await this.#validate(organization, workspaceId, id, config);
    const now = this.ctx.now();
    const record = await this.ctx.store.configs.insert({
      workspace_id: workspaceId,
      id,
      name: input.name ?? id,
      config,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    if (!record) throw conflict(`config "${id}" already exists in workspace ${workspaceId}; update it instead`);
    return shown(record);
  }

  async get(actor: Actor, workspaceId: string, id: string): Promise<StoredConfig> {
    await this.#organization(actor, workspaceId);
    const record = await this.ctx.store.configs.get(workspaceId, id);
    if (!record) throw notFound(`config "${id}" in workspace "${workspaceId}"`);
    return shown(record);
  }

  async list(actor: Actor, workspaceId: string): Promise<StoredConfig[]> {
    await this.#organization(actor, workspaceId);
    return (await this.ctx.store.configs.list(workspaceId)).map(shown);
  }

  async update(actor: Actor, workspaceId: string, id: string, input: ConfigInput): Promise<StoredConfig> {
    const organization = await this.#organization(actor, workspaceId);
    requireRole(actor, "workspace_admin", "saving a config");
    const current = await this.ctx.store.configs.get(workspaceId, id);
    if (!current) throw notFound(`config "${id}" in workspace "${workspaceId}"`);
    if (input.id !== undefined && input.id !== id)
      throw invalid(`id: "${input.id}" differs from the config's id "${id}" in the path`);
    const config = restoreInlineCredentials(input.config, current.config, `config "${id}"`, "config");
    await this.#validate(organization, workspaceId, id, config);
    const updated = await this.ctx.store.configs.replace(
      { workspace_id: workspaceId, id, name: input.name ?? current.name, config, updated_at: this.ctx.now() },
      input.version,
    );
    if (!updated) {
      throw conflict(
        `config "${id}" is at version ${(await this.ctx.store.configs.get(workspaceId, id))?.version ?? "(deleted)"}, not ${input.version}; reload it and apply the change again`,
        "version_conflict",
      );
    }
    return shown(updated);
  }

  async delete(actor: Actor, workspaceId: string, id: string): Promise<void> {
    await this.get(actor, workspaceId, id);
    requireRole(actor, "workspace_admin", "deleting a config");
    await this.ctx.store.configs.delete(workspaceId, id);
  }
}
