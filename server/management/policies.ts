/**
 * Policies: guardrails an organisation or a workspace adds to every request in a scope, which the
 * client's config cannot remove. Org admins keep organisation-wide policies, workspace admins their
 * workspace's; members only read. Guardrails named by id are copied in when the policy is saved
 * (so a policy means the same in every workspace it reaches), each one validated by the registry
 * for its side and gated by the organisation's plan, as a saved guardrail is.
 */
import type { GuardrailDefinition, Side } from "../../core/index.js";
import { expandShorthand, prepareGuardrail } from "../../core/internal.js";
import type { SchemaType } from "../schema-types.js";
import { conflict, invalid, notFound } from "../store/errors.js";
import { newId } from "../store/ids.js";
import type { Organization, Policy, PolicyScope } from "../store/types.js";
import { type Actor, requireRole, seesOrganization } from "./actor.js";
import type { ManagementContext } from "./context.js";
import { asInvalid, recordDefinition } from "./guardrails.js";
import { restoreInlineCredentials, withoutInlineCredentials } from "./inline-credentials.js";
import { assertGuardrailsAllowed } from "./plans.js";
import type { policyCreateSchema, policyUpdateSchema } from "./schemas.js";

/** A guardrail of a policy as written: a saved guardrail's id, or a definition. */
export type PolicyGuardrailInput = string | GuardrailDefinition;

/** The guardrail lists of a policy body, typed as the engine's definitions the registry checks them as. */
interface PolicyGuardrailLists {
  input_guardrails?: PolicyGuardrailInput[];
  output_guardrails?: PolicyGuardrailInput[];
}

/** Body of a policy create (`workspace_id`: set for a workspace's own policy; absent or null for an organisation-wide one). */
export type PolicyInput = Omit<SchemaType<typeof policyCreateSchema>, keyof PolicyGuardrailLists> & PolicyGuardrailLists;

/** Body of a policy update: the fields given are replaced. */
export type PolicyPatch = Omit<SchemaType<typeof policyUpdateSchema>, keyof PolicyGuardrailLists> & PolicyGuardrailLists;

const LIST_KEY: Record<Side, "input_guardrails" | "output_guardrails"> = {
  input: "input_guardrails",
  output: "output_guardrails",
};

/** A policy as answers show it: inline credentials masked. */
function shown(policy: Policy): Policy {
  return {
    ...policy,
    input_guardrails: withoutInlineCredentials(policy.input_guardrails),
    output_guardrails: withoutInlineCredentials(policy.output_guardrails),
  };
}

/**
 * Whether the caller may read a policy: anyone of its organisation it reaches. An organisation-wide
 * policy scoped to other workspaces does not reach a workspace key: its guardrails' parameters
 * (patterns, word lists, thresholds) are those workspaces' business.
 */
export function policyVisibleTo(actor: Actor, policy: Policy): boolean {
  if (!seesOrganization(actor, policy.organization_id)) return false;
  if (actor.kind === "operator" || actor.role === "org_admin") return true;
  if (policy.workspace_id !== null) return policy.workspace_id === actor.workspace_id;
  const workspaces = policy.scope.workspaces;
  return !workspaces?.length || (actor.workspace_id !== null && workspaces.includes(actor.workspace_id));
}

export class Policies {
  constructor(private readonly ctx: ManagementContext) {}

  #visible(actor: Actor, policy: Policy): boolean {
    return policyVisibleTo(actor, policy);
  }

  /** Throws unless the caller may change policies of this owner: org admins for the organisation, workspace admins for theirs. */
  #assertManages(actor: Actor, workspaceId: string | null, action: string): void {
    if (workspaceId === null) {
      requireRole(actor, "org_admin", `${action} an organisation-wide policy`);
      return;
    }
    requireRole(actor, "workspace_admin", `${action} a policy`);
  }

  async #organization(actor: Actor, organizationId: string): Promise<Organization> {
    const organization = seesOrganization(actor, organizationId)
      ? await this.ctx.store.organizations.get(organizationId)
      : undefined;
    if (!organization) throw notFound(`organization "${organizationId}"`);
    return organization;
  }

  /** Throws 404 unless the workspace is the organisation's and the caller reaches it. */
  async #assertWorkspace(actor: Actor, organizationId: string, workspaceId: string, where: string): Promise<void> {
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    const reaches = actor.kind === "operator" || actor.role === "org_admin" || actor.workspace_id === workspaceId;
    if (workspace?.organization_id !== organizationId || !reaches) throw notFound(`${where}workspace "${workspaceId}"`);
  }

  /** Checks a scope against its owner: workspaces and keys of the organisation, within a workspace policy's own workspace. */
  async #checkScope(actor: Actor, organizationId: string, owner: string | null, scope: PolicyScope): Promise<PolicyScope> {
    for (const [index, id] of (scope.workspaces ?? []).entries()) {
      if (owner !== null && id !== owner) {
        throw invalid(`scope.workspaces[${index}]: a workspace's policy applies to its own workspace "${owner}" only`);
      }
      await this.#assertWorkspace(actor, organizationId, id, `scope.workspaces[${index}]: `);
    }
    for (const [index, id] of (scope.api_keys ?? []).entries()) {
      const key = await this.ctx.store.apiKeys.get(id);
      const inReach = key?.organization_id === organizationId && (owner === null || key.workspace_id === owner);
      if (!inReach) throw notFound(`scope.api_keys[${index}]: API key "${id}"`);
      if (key.workspace_id === null) {
        throw invalid(`scope.api_keys[${index}]: "${id}" is an organisation admin key, which cannot call models`);
      }
    }
    for (const [index, pattern] of (scope.models ?? []).entries()) {
      if (!/^[^\s]+$/.test(pattern))
        throw invalid(`scope.models[${index}]: "${pattern}" is not a model pattern such as "@openai/gpt-4o*"`);
    }
    if (scope.models?.length && (scope.mcp_servers?.length || scope.tools?.length)) {
      throw invalid("scope: models hold model traffic, mcp_servers and tools hold tool traffic; a scope names one or the other");
    }
    for (const [index, pattern] of [...(scope.mcp_servers ?? []), ...(scope.tools ?? [])].entries()) {
      if (!/^[^\s]+$/.test(pattern)) throw invalid(`scope: "${pattern}" (entry ${index}) is not a server or tool name pattern`);
    }
    const kept: PolicyScope = {};
    if (scope.workspaces?.length) kept.workspaces = [...new Set(scope.workspaces)];
    if (scope.api_keys?.length) kept.api_keys = [...new Set(scope.api_keys)];
    if (scope.models?.length) kept.models = [...new Set(scope.models)];
    if (scope.mcp_servers?.length) kept.mcp_servers = [...new Set(scope.mcp_servers)];
    if (scope.tools?.length) kept.tools = [...new Set(scope.tools)];
    return kept;
  }

  /**
   * The stored definitions of one side: saved guardrails copied in, inline ones as written, each
   * validated for the side and gated by plan. Saved guardrails keep their own `async` (true when
   * unset, spec §2.2); inline ones are synchronous unless they say otherwise, as in a config.
   */
  async #resolveSide(
    organization: Organization,
    owner: string | null,
    policyId: string,
    side: Side,
    entries: PolicyGuardrailInput[],
    current: GuardrailDefinition[] | undefined,
  ): Promise<GuardrailDefinition[]> {
    const key = LIST_KEY[side];
    const resolved: GuardrailDefinition[] = [];
    const seen = new Set<string>();
    for (const [index, entry] of entries.entries()) {
      const where = `${key}[${index}]`;
      let definition: GuardrailDefinition;
      if (typeof entry === "string") {
        const saved = await this.#savedGuardrail(organization.id, owner, entry, where);
        definition = { ...saved, async: saved.async ?? true };
      } else {
        if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
          throw invalid(`${where}: must be a saved guardrail's id or a guardrail object`);
        }
        // The shorthand of configs (`{"default.wordCount": {...}}`) is stored expanded.
        const written = (
          "checks" in entry ? entry : expandShorthand(entry as Record<string, unknown>, where).definition
        ) as GuardrailDefinition;
        const id = written.id ?? `${policyId}.${side}.${index}`;
        const before = current?.find((g) => g.id === id);
        definition = { ...restoreInlineCredentials(written, before, where), id, async: written.async ?? false };
      }
      const id = definition.id as string;
      if (seen.has(id)) throw invalid(`${where}: guardrail "${id}" is listed twice on the ${side} side`, "duplicate_guardrail");
      seen.add(id);
      let prepared;
      try {
        prepared = prepareGuardrail(definition, { side, inline: false, path: where, registry: this.ctx.registry }).guardrail;
      } catch (error) {
        throw asInvalid(error, `policy "${policyId}"`);
      }
      assertGuardrailsAllowed(organization, [prepared], this.ctx.registry, `policy "${policyId}", ${where}`);
      resolved.push(definition);
    }
    return resolved;
  }

  /**
   * A saved guardrail named by a policy: `id` in a workspace's policy is one of that workspace;
   * an organisation-wide policy names one as `workspace_id/id`.
   */
  async #savedGuardrail(organizationId: string, owner: string | null, ref: string, where: string): Promise<GuardrailDefinition> {
    const slash = ref.indexOf("/");
    const workspaceId = slash >= 0 ? ref.slice(0, slash) : owner;
    const id = slash >= 0 ? ref.slice(slash + 1) : ref;
    if (workspaceId === null) {
      throw invalid(
        `${where}: an organisation-wide policy names a saved guardrail as "workspace_id/guardrail_id", or writes it inline`,
      );
    }
    if (owner !== null && workspaceId !== owner) {
      throw invalid(`${where}: a workspace's policy uses guardrails of its own workspace "${owner}"`);
    }
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    const record =
      workspace?.organization_id === organizationId ? await this.ctx.store.guardrails.get(workspaceId, id) : undefined;
    if (!record) throw notFound(`${where}: guardrail "${id}" in workspace "${workspaceId}"`);
    return recordDefinition(record);
  }

  /** Loads a policy the caller may see, or throws 404. */
  async #load(actor: Actor, id: string): Promise<Policy> {
    const policy = await this.ctx.store.policies.get(id);
    if (!policy || !this.#visible(actor, policy)) throw notFound(`policy "${id}"`);
    return policy;
  }

  async get(actor: Actor, id: string): Promise<Policy> {
    return shown(await this.#load(actor, id));
  }

  /** The policies the caller sees; `workspace_id` narrows to one workspace's own, null to organisation-wide ones. */
  async list(actor: Actor, organizationId: string, filter: { workspace_id?: string | null } = {}): Promise<Policy[]> {
    await this.#organization(actor, organizationId);
    const all = await this.ctx.store.policies.list({
      organizationId,
      ...(filter.workspace_id !== undefined && { workspaceId: filter.workspace_id }),
    });
    return all.filter((policy) => this.#visible(actor, policy)).map(shown);
  }

  async create(actor: Actor, organizationId: string, input: PolicyInput): Promise<Policy> {
    const organization = await this.#organization(actor, organizationId);
    const owner = input.workspace_id ?? null;
    this.#assertManages(actor, owner, "creating");
    if (owner !== null) await this.#assertWorkspace(actor, organizationId, owner, "workspace_id: ");
    const id = input.id ?? newId("pol");
    const input_guardrails = await this.#resolveSide(organization, owner, id, "input", input.input_guardrails ?? [], undefined);
    const output_guardrails = await this.#resolveSide(
      organization,
      owner,
      id,
      "output",
      input.output_guardrails ?? [],
      undefined,
    );
    if (!input_guardrails.length && !output_guardrails.length) {
      throw invalid("a policy needs at least one guardrail in input_guardrails or output_guardrails");
    }
    const now = this.ctx.now();
    const created = await this.ctx.store.policies.create({
      id,
      organization_id: organizationId,
      workspace_id: owner,
      name: input.name ?? id,
      mode: input.mode ?? "enforce",
      scope: await this.#checkScope(actor, organizationId, owner, input.scope ?? {}),
      input_guardrails,
      output_guardrails,
      created_at: now,
      updated_at: now,
    });
    if (!created) throw conflict(`policy "${id}" already exists; update it instead`);
    return shown(created);
  }

  async update(actor: Actor, id: string, patch: PolicyPatch): Promise<Policy> {
    const current = await this.#load(actor, id);
    this.#assertManages(actor, current.workspace_id, "changing");
    const organization = await this.#organization(actor, current.organization_id);
    const changes: Partial<Policy> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.mode !== undefined) changes.mode = patch.mode;
    if (patch.scope !== undefined) {
      changes.scope = await this.#checkScope(actor, current.organization_id, current.workspace_id, patch.scope);
    }
    for (const side of ["input", "output"] as const) {
      const entries = patch[LIST_KEY[side]];
      if (entries === undefined) continue;
      changes[LIST_KEY[side]] = await this.#resolveSide(
        organization,
        current.workspace_id,
        id,
        side,
        entries,
        current[LIST_KEY[side]],
      );
    }
    const input = changes.input_guardrails ?? current.input_guardrails;
    const output = changes.output_guardrails ?? current.output_guardrails;
    if (!input.length && !output.length)
      throw invalid("a policy needs at least one guardrail in input_guardrails or output_guardrails");
    const updated = await this.ctx.store.policies.update(id, changes, this.ctx.now());
    if (!updated) throw notFound(`policy "${id}"`);
    return shown(updated);
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const current = await this.#load(actor, id);
    this.#assertManages(actor, current.workspace_id, "deleting");
    await this.ctx.store.policies.delete(id);
  }
}
