/**
 * API keys: the plain key is returned once, on creation; the store keeps its hash. A caller may
 * give a key at most its own role, within its reach: organization admins anywhere in their
 * organization, workspace admins in their workspace.
 */
import { generateApiKey, hashApiKey, keyHint } from "../store/api-keys.js";
import { forbidden, invalid, notFound } from "../store/errors.js";
import type { SchemaType, WrittenType } from "../schema-types.js";
import type { ApiKey, Role } from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole, roleAtLeast, seesOrganization } from "./actor.js";
import type { ManagementContext } from "./context.js";
import type { apiKeyCreateSchema, apiKeyUpdateSchema } from "./schemas.js";
import { newId } from "../store/ids.js";

/**
 * Body of a key create (`workspace_id`: required for workspace_admin and member keys, optional for
 * org_admin keys; `role`: member when not given). Seeding may also give `key`: one the operator
 * chose (from the config file) instead of a generated one.
 */
export type ApiKeyInput = WrittenType<typeof apiKeyCreateSchema> & { key?: string };

/** Body of a key update. */
export type ApiKeyPatch = SchemaType<typeof apiKeyUpdateSchema>;

/** A created key: its record, and the key itself, shown this once. */
export interface CreatedApiKey {
  api_key: ApiKey;
  key: string;
}

export class ApiKeys {
  constructor(private readonly ctx: ManagementContext) {}

  #assertMayGrant(actor: Actor, role: Role): void {
    if (actor.kind === "operator") return;
    if (actor.role === "member") throw forbidden("managing API keys needs the workspace_admin role or above", "role_forbidden");
    if (!roleAtLeast(actor.role, role)) {
      throw forbidden(`a ${actor.role} key cannot manage ${role} keys`, "role_forbidden");
    }
  }

  async #assertWorkspace(actor: Actor, organizationId: string, workspaceId: string): Promise<void> {
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    if (workspace?.organization_id !== organizationId) throw notFound(`workspace "${workspaceId}"`);
    assertSeesWorkspace(actor, workspace, workspaceId);
  }

  async create(actor: Actor, organizationId: string, input: ApiKeyInput): Promise<CreatedApiKey> {
    if (!seesOrganization(actor, organizationId) || !(await this.ctx.store.organizations.get(organizationId))) {
      throw notFound(`organization "${organizationId}"`);
    }
    const role = input.role ?? "member";
    this.#assertMayGrant(actor, role);
    const workspaceId = input.workspace_id ?? (actor.kind === "key" && role !== "org_admin" ? actor.workspace_id : null);
    if (workspaceId === null && role !== "org_admin") {
      throw invalid(`workspace_id: a ${role} key belongs to a workspace; give workspace_id`);
    }
    if (workspaceId !== null) await this.#assertWorkspace(actor, organizationId, workspaceId);
    else requireRole(actor, "org_admin", "creating an organization-level key");
    if (input.key !== undefined && actor.kind !== "operator")
      throw forbidden("only the operator may choose a key", "operator_only");
    const key = input.key ?? generateApiKey();
    const now = this.ctx.now();
    const record = await this.ctx.store.apiKeys.create({
      id: newId("key"),
      organization_id: organizationId,
      workspace_id: workspaceId,
      name: input.name,
      role,
      hash: hashApiKey(key),
      hint: keyHint(key),
      created_at: now,
      updated_at: now,
    });
    return { api_key: record, key };
  }

  /** A key record the caller may see. */
  async get(actor: Actor, id: string): Promise<ApiKey> {
    const key = await this.ctx.store.apiKeys.get(id);
    if (!key || !seesOrganization(actor, key.organization_id)) throw notFound(`API key "${id}"`);
    if (actor.kind === "key" && actor.role !== "org_admin") {
      // Workspace callers see their workspace's keys only, and a member only its own key.
      if (key.workspace_id !== actor.workspace_id) throw notFound(`API key "${id}"`);
      if (actor.role === "member" && key.id !== actor.key_id) throw notFound(`API key "${id}"`);
    }
    return key;
  }

  /** The keys the caller sees, optionally of one workspace. */
  async list(actor: Actor, organizationId: string, workspaceId?: string): Promise<ApiKey[]> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    if (workspaceId !== undefined) await this.#assertWorkspace(actor, organizationId, workspaceId);
    if (actor.kind === "key" && actor.role !== "org_admin") {
      if (actor.workspace_id === null) return [];
      const own = await this.ctx.store.apiKeys.list({ organizationId, workspaceId: actor.workspace_id });
      return actor.role === "member" ? own.filter((k) => k.id === actor.key_id) : own;
    }
    return this.ctx.store.apiKeys.list({ organizationId, ...(workspaceId !== undefined && { workspaceId }) });
  }

  async update(actor: Actor, id: string, patch: ApiKeyPatch): Promise<ApiKey> {
    const key = await this.get(actor, id);
    this.#assertMayGrant(actor, key.role);
    if (patch.role !== undefined) {
      this.#assertMayGrant(actor, patch.role);
      if (patch.role !== "org_admin" && key.workspace_id === null) {
        throw invalid(`role: an organization-level key must stay org_admin; create a ${patch.role} key in a workspace instead`);
      }
    }
    const updated = await this.ctx.store.apiKeys.update(id, patch, this.ctx.now());
    if (!updated) throw notFound(`API key "${id}"`);
    return updated;
  }

  /** Revokes a key: it stops working at once (the gateway's cache is told). */
  async delete(actor: Actor, id: string): Promise<void> {
    const key = await this.get(actor, id);
    if (!(actor.kind === "key" && actor.key_id === id)) this.#assertMayGrant(actor, key.role);
    await this.ctx.store.apiKeys.delete(id);
  }
}
