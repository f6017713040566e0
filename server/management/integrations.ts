/**
 * Integrations (spec §2.6): an organization's connections to model providers, holding credentials
 * sealed at rest, and their provisioning to workspaces with a budget and rate limit each. A
 * workspace admin may create a workspace-only integration when the organization allows it.
 * Provisioning an integration also gives the workspace a provider of the integration's slug, so
 * `@slug/model` works at once.
 */
import { addressAllowed } from "../../core/internal.js";
import type { SchemaType } from "../schema-types.js";
import { conflict, forbidden, invalid, notFound } from "../store/errors.js";
import type {
  Integration,
  IntegrationCredentials,
  IntegrationWithSecret,
  Organization,
  Provider,
  Provisioning,
} from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole, seesOrganization } from "./actor.js";
import type { ManagementContext } from "./context.js";
import type { integrationCreateSchema, integrationUpdateSchema, provisioningSchema } from "./schemas.js";
import { newId } from "../store/ids.js";

/** Body of an integration create (`workspace_id` set to create a workspace-only integration). */
export type IntegrationInput = SchemaType<typeof integrationCreateSchema>;

/** Body of an integration update. */
export type IntegrationPatch = SchemaType<typeof integrationUpdateSchema>;

/** Body of a provisioning. */
export type ProvisioningInput = SchemaType<typeof provisioningSchema>;

/** The sealing context of an integration's credentials: binds the ciphertext to the record. */
export function credentialsContext(integrationId: string): string {
  return `integration:${integrationId}`;
}

/** Opens an integration's credentials; undefined when it holds none. */
export function openCredentials(ctx: ManagementContext, record: IntegrationWithSecret): IntegrationCredentials | undefined {
  if (!record.credentials_sealed) return undefined;
  return JSON.parse(ctx.box.open(record.credentials_sealed, credentialsContext(record.id))) as IntegrationCredentials;
}

/**
 * Checks a URL the gateway will call for a record (`field` names it in errors). The operator and
 * organization admins point anywhere, as the operator does; a workspace admin's URL is held to the
 * public internet (literal addresses here, host names when the gateway connects).
 */
export function checkUpstreamUrl(
  ctx: ManagementContext,
  actor: Actor,
  value: string | null | undefined,
  field: string,
  what: string,
): void {
  if (value === undefined || value === null) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field}: "${value}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(`${field}: must be an http or https URL`);
  if (url.username || url.password) throw invalid(`${field}: must not carry credentials; put them in credentials`);
  if (upstreamTrusted(actor)) return;
  const policy = ctx.workspaceAddressPolicy;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const isLiteral = /^[\d.]+$/.test(host) || host.includes(":");
  const local = (host === "localhost" || host.endsWith(".localhost")) && !policy.allowLoopback;
  if (local || (isLiteral && !addressAllowed(host, policy))) {
    throw forbidden(
      `${field}: ${url.hostname} is a private, loopback or link-local address; only the operator may point ${what} there`,
      "address_not_allowed",
    );
  }
}

/** Whether an upstream URL the actor chose is trusted as the operator's (private addresses allowed). */
export function upstreamTrusted(actor: Actor): boolean {
  return actor.kind === "operator" || actor.role === "org_admin";
}

/**
 * Provisions an integration to a workspace and gives the workspace its default provider, named
 * `providerSlug` (the integration's slug unless the operator names another).
 */
export async function provisionToWorkspace(
  ctx: ManagementContext,
  integration: Integration,
  workspaceId: string,
  input: ProvisioningInput,
  providerSlug = integration.slug,
): Promise<{ provisioning: Provisioning; provider: Provider | null }> {
  const now = ctx.now();
  const existing = await ctx.store.provisioning.get(integration.id, workspaceId);
  const provisioning = await ctx.store.provisioning.put({
    integration_id: integration.id,
    workspace_id: workspaceId,
    budget: input.budget === undefined ? (existing?.budget ?? null) : input.budget,
    rate_limit: input.rate_limit === undefined ? (existing?.rate_limit ?? null) : input.rate_limit,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  });
  let provider: Provider | null = (await ctx.store.providers.findBySlug(workspaceId, providerSlug)) ?? null;
  if (!provider) {
    provider = await ctx.store.providers.create({
      id: newId("prv"),
      workspace_id: workspaceId,
      slug: providerSlug,
      name: integration.name,
      integration_id: integration.id,
      budget: null,
      rate_limit: null,
      allowed_models: "all",
      created_at: now,
      updated_at: now,
    });
  } else if (provider.integration_id !== integration.id) {
    // The slug is taken by a provider over another integration; the workspace names this one itself.
    provider = null;
  }
  return { provisioning, provider };
}

/**
 * May the caller create an integration (of providers or plugins) in this scope? The organization's
 * needs an org admin; a workspace's own a workspace admin of it, when the organization allows them.
 */
export async function assertMayCreateIntegration(
  ctx: ManagementContext,
  actor: Actor,
  organization: Organization,
  workspaceId: string | null,
  noun: string,
): Promise<void> {
  if (workspaceId === null) {
    requireRole(actor, "org_admin", `creating an organization ${noun}`);
    return;
  }
  const workspace = await ctx.store.workspaces.get(workspaceId);
  if (workspace?.organization_id !== organization.id) throw notFound(`workspace "${workspaceId}"`);
  assertSeesWorkspace(actor, workspace, workspaceId);
  requireRole(actor, "workspace_admin", `creating a workspace ${noun}`);
  if (actor.kind !== "operator" && !organization.allow_workspace_integrations) {
    throw forbidden(
      `organization ${organization.id} does not allow workspace-only integrations; an org admin can allow them (allow_workspace_integrations)`,
      "workspace_integrations_disabled",
    );
  }
}

/** May the caller change this integration? Org admins any; a workspace admin its workspace's own. */
export function assertManagesIntegration(actor: Actor, integration: { workspace_id: string | null }, noun: string): void {
  if (actor.kind === "operator" || actor.role === "org_admin") return;
  if (integration.workspace_id !== null && integration.workspace_id === actor.workspace_id) {
    requireRole(actor, "workspace_admin", `changing ${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`);
    return;
  }
  throw forbidden(`changing an organization's ${noun} needs the org_admin role`, "role_forbidden");
}

export class Integrations {
  constructor(private readonly ctx: ManagementContext) {}

  /** The kind's options must suit it: a wrong region or a missing key is refused when written, not at the first call. */
  #checkOptions(provider: string, credentials: IntegrationCredentials | null | undefined): void {
    try {
      this.ctx.checkProviderOptions(provider, credentials?.options, "credentials.options");
    } catch (error) {
      throw invalid((error as Error).message);
    }
  }

  async #heldCredentials(id: string): Promise<IntegrationCredentials | undefined> {
    const sealed = await this.ctx.store.integrations.getWithSecret(id);
    return sealed ? openCredentials(this.ctx, sealed) : undefined;
  }

  #checkBaseUrl(actor: Actor, baseUrl: string | null | undefined): void {
    checkUpstreamUrl(this.ctx, actor, baseUrl, "base_url", "an integration");
  }

  #seal(
    id: string,
    credentials: IntegrationCredentials | null | undefined,
  ): { credentials_sealed: string | null; has_credentials: boolean } {
    if (!credentials || Object.keys(credentials).length === 0) return { credentials_sealed: null, has_credentials: false };
    return { credentials_sealed: this.ctx.box.seal(JSON.stringify(credentials), credentialsContext(id)), has_credentials: true };
  }

  /** Loads an integration the caller may see, or throws 404. */
  async get(actor: Actor, id: string): Promise<Integration> {
    const integration = await this.ctx.store.integrations.get(id);
    if (!integration || !(await this.#visible(actor, integration))) throw notFound(`integration "${id}"`);
    return integration;
  }

  async #visible(actor: Actor, integration: Integration): Promise<boolean> {
    if (!seesOrganization(actor, integration.organization_id)) return false;
    if (actor.kind === "operator" || actor.role === "org_admin") return true;
    if (actor.workspace_id === null) return false;
    if (integration.workspace_id !== null) return integration.workspace_id === actor.workspace_id;
    return (await this.ctx.store.provisioning.get(integration.id, actor.workspace_id)) !== undefined;
  }

  /** Lists the integrations the caller sees; `workspace_id` narrows to one workspace's own. */
  async list(actor: Actor, organizationId: string, filter: { workspace_id?: string | null } = {}): Promise<Integration[]> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    const all = await this.ctx.store.integrations.list({
      organizationId,
      ...(filter.workspace_id !== undefined && { workspaceId: filter.workspace_id }),
    });
    const visible: Integration[] = [];
    for (const integration of all) if (await this.#visible(actor, integration)) visible.push(integration);
    return visible;
  }

  async create(actor: Actor, organizationId: string, input: IntegrationInput): Promise<Integration> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    const organization = await this.ctx.store.organizations.get(organizationId);
    if (!organization) throw notFound(`organization "${organizationId}"`);
    const workspaceId = input.workspace_id ?? null;
    await assertMayCreateIntegration(this.ctx, actor, organization, workspaceId, "integration");
    if (workspaceId !== null) {
      if (input.auto_provision)
        throw invalid("auto_provision: a workspace-only integration cannot be provisioned to other workspaces");
    }
    if (!this.ctx.isProviderKind(input.provider))
      throw invalid(`provider: "${input.provider}" is not a provider guardgate can call`, "unknown_provider");
    this.#checkOptions(input.provider, input.credentials);
    this.#checkBaseUrl(actor, input.base_url);
    if (await this.ctx.store.integrations.findBySlug(organizationId, input.slug)) {
      throw conflict(`an integration with slug "${input.slug}" already exists in organization ${organizationId}`);
    }
    const id = newId("int");
    const now = this.ctx.now();
    const integration = await this.ctx.store.integrations.create({
      id,
      organization_id: organizationId,
      workspace_id: workspaceId,
      slug: input.slug,
      name: input.name ?? input.slug,
      provider: input.provider,
      base_url: input.base_url ?? null,
      allowed_models: input.allowed_models ?? "all",
      pricing: input.pricing ?? {},
      auto_provision: input.auto_provision ?? null,
      ...this.#seal(id, input.credentials),
      created_at: now,
      updated_at: now,
    });
    // A workspace's own integration serves that workspace: provision it there at once.
    if (workspaceId !== null) await provisionToWorkspace(this.ctx, integration, workspaceId, {});
    return integration;
  }

  async update(actor: Actor, id: string, patch: IntegrationPatch): Promise<Integration> {
    const integration = await this.get(actor, id);
    assertManagesIntegration(actor, integration, "integration");
    if (patch.provider !== undefined && !this.ctx.isProviderKind(patch.provider)) {
      throw invalid(`provider: "${patch.provider}" is not a provider guardgate can call`, "unknown_provider");
    }
    if (patch.auto_provision && integration.workspace_id !== null) {
      throw invalid("auto_provision: a workspace-only integration cannot be provisioned to other workspaces");
    }
    this.#checkBaseUrl(actor, patch.base_url);
    if (patch.credentials !== undefined || patch.provider !== undefined) {
      const credentials = patch.credentials !== undefined ? patch.credentials : await this.#heldCredentials(id);
      this.#checkOptions(patch.provider ?? integration.provider, credentials);
    }
    const { credentials, ...rest } = patch;
    const updated = await this.ctx.store.integrations.update(
      id,
      { ...rest, ...(credentials !== undefined && this.#seal(id, credentials)) },
      this.ctx.now(),
    );
    if (!updated) throw notFound(`integration "${id}"`);
    return updated;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    const integration = await this.get(actor, id);
    assertManagesIntegration(actor, integration, "integration");
    await this.ctx.store.integrations.delete(id);
  }

  /** Provisions an organization integration to a workspace (org admins). */
  async provision(
    actor: Actor,
    integrationId: string,
    workspaceId: string,
    input: ProvisioningInput,
    providerSlug?: string,
  ): Promise<{ provisioning: Provisioning; provider: Provider | null }> {
    const integration = await this.get(actor, integrationId);
    requireRole(actor, "org_admin", "provisioning an integration");
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    if (workspace?.organization_id !== integration.organization_id) throw notFound(`workspace "${workspaceId}"`);
    if (integration.workspace_id !== null && integration.workspace_id !== workspaceId) {
      throw invalid(
        `integration "${integrationId}" belongs to workspace ${integration.workspace_id} and cannot be provisioned elsewhere`,
      );
    }
    return provisionToWorkspace(this.ctx, integration, workspaceId, input, providerSlug);
  }

  /** The provisioning of an integration: to every workspace the caller sees. */
  async provisioning(actor: Actor, integrationId: string): Promise<Provisioning[]> {
    const integration = await this.get(actor, integrationId);
    const all = await this.ctx.store.provisioning.list({ integrationId: integration.id });
    if (actor.kind === "operator" || actor.role === "org_admin") return all;
    return all.filter((p) => p.workspace_id === actor.workspace_id);
  }

  /** Withdraws an integration from a workspace, with the workspace's providers over it. */
  async unprovision(actor: Actor, integrationId: string, workspaceId: string): Promise<void> {
    const integration = await this.get(actor, integrationId);
    requireRole(actor, "org_admin", "withdrawing an integration");
    if (!(await this.ctx.store.provisioning.delete(integration.id, workspaceId))) {
      throw notFound(`provisioning of integration "${integrationId}" to workspace "${workspaceId}"`);
    }
  }
}
