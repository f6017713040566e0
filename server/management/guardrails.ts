/**
 * Guardrail records (spec §2.1) of a workspace, versioned. A record is validated by the engine's
 * registry (known checks, parameters against their schemas, supported sides) and gated by the
 * organization's plan before it is saved. A change that would break a saved config referencing
 * the guardrail is refused, as is deleting a guardrail a config still uses.
 */
import { ConfigError, type Guardrail, type GuardrailDefinition, type GuardrailSource, type Side } from "../../core/index.js";
import { prepareGuardrail } from "../../core/internal.js";
import { conflict, invalid, notFound } from "../store/errors.js";
import type { GuardrailRecord, Organization, Workspace } from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole } from "./actor.js";
import { referencedGuardrailIds, validateConfig } from "./config-validation.js";
import type { ManagementContext } from "./context.js";
import { newId } from "../store/ids.js";
import { assertGuardrailsAllowed } from "./plans.js";

/** Body of a guardrail save: the guardrail as written, with an optional id, name and version. */
export interface GuardrailInput extends Omit<GuardrailDefinition, "id" | "name"> {
  id?: string;
  name?: string;
  /** On update: the version being replaced. */
  version?: number;
}

/** The definition a record serves to configs: the stored definition with the record's id and name. */
export function recordDefinition(record: GuardrailRecord): GuardrailDefinition {
  return { ...record.definition, id: record.id, name: record.name };
}

/** A guardrail source reading the store directly (no cache): what validation must see. */
export function storeGuardrailSource(ctx: ManagementContext): GuardrailSource {
  return {
    async get(id, scope) {
      if (scope?.workspaceId === undefined) return undefined;
      const record = await ctx.store.guardrails.get(scope.workspaceId, id);
      return record && recordDefinition(record);
    },
  };
}

/** Turns the engine's ConfigError into a 400 that keeps its code and path. */
export function asInvalid(error: unknown, where: string): unknown {
  if (error instanceof ConfigError) {
    const refusal = invalid(`${where}: ${error.message}`, error.code);
    // The path stays reachable, so a caller with a wider view (the config file) can extend it.
    return Object.assign(refusal, { configError: error });
  }
  return error;
}

/**
 * Validates a guardrail definition with the registry; resolves to the prepared guardrail. A
 * record without a side must be valid for at least one side.
 */
export function prepareRecord(ctx: ManagementContext, definition: GuardrailDefinition, where: string): Guardrail {
  const sides: Side[] = definition.side ? [definition.side] : ["input", "output"];
  let first: unknown;
  for (const side of sides) {
    try {
      return prepareGuardrail(definition, { side, inline: false, path: "", registry: ctx.registry }).guardrail;
    } catch (error) {
      first ??= error;
    }
  }
  throw asInvalid(first, where);
}

export class Guardrails {
  constructor(private readonly ctx: ManagementContext) {}

  async #context(actor: Actor, workspaceId: string): Promise<{ workspace: Workspace; organization: Organization }> {
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    assertSeesWorkspace(actor, workspace, workspaceId);
    const organization = await this.ctx.store.organizations.get(workspace.organization_id);
    if (!organization) throw notFound(`workspace "${workspaceId}"`);
    return { workspace, organization };
  }

  /** Validates and gates a body; returns the definition to store. */
  #check(organization: Organization, id: string, input: GuardrailInput): GuardrailDefinition {
    const { id: _id, name: _name, version: _version, ...rest } = input;
    const definition: GuardrailDefinition = { ...rest, id };
    const where = `guardrail "${id}"`;
    const guardrail = prepareRecord(this.ctx, definition, where);
    assertGuardrailsAllowed(organization, [guardrail], this.ctx.registry, where);
    const { id: _drop, ...stored } = definition;
    return stored as GuardrailDefinition;
  }

  async create(actor: Actor, workspaceId: string, input: GuardrailInput): Promise<GuardrailRecord> {
    const { organization } = await this.#context(actor, workspaceId);
    requireRole(actor, "workspace_admin", "saving a guardrail");
    const id = input.id ?? newId("gr");
    const definition = this.#check(organization, id, input);
    const now = this.ctx.now();
    const record = await this.ctx.store.guardrails.insert({
      workspace_id: workspaceId,
      id,
      name: input.name ?? id,
      definition,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    if (!record) throw conflict(`guardrail "${id}" already exists in workspace ${workspaceId}; update it instead`);
    return record;
  }

  async get(actor: Actor, workspaceId: string, id: string): Promise<GuardrailRecord> {
    await this.#context(actor, workspaceId);
    const record = await this.ctx.store.guardrails.get(workspaceId, id);
    if (!record) throw notFound(`guardrail "${id}" in workspace "${workspaceId}"`);
    return record;
  }

  async list(actor: Actor, workspaceId: string): Promise<GuardrailRecord[]> {
    await this.#context(actor, workspaceId);
    return this.ctx.store.guardrails.list(workspaceId);
  }

  /** Replaces a guardrail (a new version); with `input.version`, only if that is the current one. */
  async update(actor: Actor, workspaceId: string, id: string, input: GuardrailInput): Promise<GuardrailRecord> {
    const { organization } = await this.#context(actor, workspaceId);
    requireRole(actor, "workspace_admin", "saving a guardrail");
    const current = await this.ctx.store.guardrails.get(workspaceId, id);
    if (!current) throw notFound(`guardrail "${id}" in workspace "${workspaceId}"`);
    if (input.id !== undefined && input.id !== id)
      throw invalid(`id: "${input.id}" differs from the guardrail's id "${id}" in the path`);
    const definition = this.#check(organization, id, input);
    await this.#assertConfigsStillValid(workspaceId, id, { ...definition, id, name: input.name ?? current.name });
    const updated = await this.ctx.store.guardrails.replace(
      { workspace_id: workspaceId, id, name: input.name ?? current.name, definition, updated_at: this.ctx.now() },
      input.version,
    );
    if (!updated) {
      throw conflict(
        `guardrail "${id}" is at version ${(await this.ctx.store.guardrails.get(workspaceId, id))?.version ?? "(deleted)"}, not ${input.version}; reload it and apply the change again`,
        "version_conflict",
      );
    }
    return updated;
  }

  async delete(actor: Actor, workspaceId: string, id: string): Promise<void> {
    await this.get(actor, workspaceId, id);
    requireRole(actor, "workspace_admin", "deleting a guardrail");
    const users = (await this.ctx.store.configs.list(workspaceId)).filter((c) => referencedGuardrailIds(c.config).has(id));
    if (users.length) {
      throw conflict(
        `guardrail "${id}" is used by config ${users.map((c) => `"${c.id}"`).join(", ")}; detach it from them first`,
        "guardrail_in_use",
      );
    }
    await this.ctx.store.guardrails.delete(workspaceId, id);
  }

  /** Re-validates the configs that reference a guardrail as if it were already replaced. */
  async #assertConfigsStillValid(workspaceId: string, id: string, replacement: GuardrailDefinition): Promise<void> {
    const base = storeGuardrailSource(this.ctx);
    const overlay: GuardrailSource = {
      get: async (ref, scope) => (ref === id ? replacement : base.get(ref, scope)),
    };
    for (const config of await this.ctx.store.configs.list(workspaceId)) {
      if (!referencedGuardrailIds(config.config).has(id)) continue;
      try {
        await validateConfig(config.config, { registry: this.ctx.registry, source: overlay, workspaceId });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        throw conflict(`this change to guardrail "${id}" would break config "${config.id}": ${error.message}`, "breaks_config");
      }
    }
  }
}
