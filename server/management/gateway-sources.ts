/**
 * The store as the gateway reads it on every request: API keys, providers (with their integration's
 * credentials opened), plugin credentials (opened), guardrail records, configs and workspace
 * context, each cached in memory so that the steady state costs no query and no decryption. The
 * store's change feed drops what changed (and everything when another process wrote), so a revoked
 * key, an edited guardrail or replaced plugin credentials take effect on the next request; a time
 * limit on every entry is the safety net.
 */
import { LRUCache } from "lru-cache";
import type { GuardrailDefinition } from "../../core/index.js";
import type { LimitScope } from "../limits/enforcer.js";
import { hashApiKey, sameHash } from "../store/api-keys.js";
import type { ChangeEvent } from "../store/repository.js";
import type { ModelAllowList, ModelPrice, Organization, Role, Workspace, WorkspaceSettings } from "../store/types.js";
import type { ManagementContext } from "./context.js";
import type { PolicyRecord } from "../sources/types.js";
import { recordDefinition } from "./guardrails.js";
import { openCredentials } from "./integrations.js";
import { intersectModels } from "./limit-rules.js";
import { pluginCredentialsOf } from "./plugin-integrations.js";

/** Narrows a lookup to a workspace (the gateway's Scope). */
export interface Scope {
  workspaceId?: string;
}

/** A verified key, as the gateway and the admin API see it: never the key itself. */
export interface KeyIdentity {
  id: string;
  /** The workspace requests with this key act in; absent for organization-level admin keys. */
  workspaceId: string;
  name?: string;
  organizationId: string;
  role: Role;
}

/** An organization-level key (no workspace): admin routes only. */
export type AdminIdentity = Omit<KeyIdentity, "workspaceId"> & { workspaceId: string | null };

/** A provider as the gateway calls it: the gateway's ProviderRecord plus what limits need. */
export interface GatewayProvider {
  slug: string;
  /** Provider kind. */
  provider: string;
  baseUrl?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  options?: Record<string, unknown>;
  workspaceId: string;
  providerId: string;
  integrationId: string;
  organizationId: string;
  /** The models this provider allows (integration and provider lists combined). */
  allowedModels: ModelAllowList;
  pricing: Record<string, ModelPrice>;
  /** The integration as provisioned to the workspace, then the provider itself. */
  limits: LimitScope[];
  /** False for a workspace-only integration: its base URL was chosen by a workspace admin. */
  trusted: boolean;
}

/** A saved config as the gateway reads it. */
export interface GatewayConfigRecord {
  id: string;
  config: Record<string, unknown>;
  workspaceId: string;
}

/** A workspace with its organization and the settings in force. */
export interface WorkspaceContext {
  workspace: Workspace;
  organization: Organization;
  settings: WorkspaceSettings;
  /** The workspace-wide limit scope. */
  limits: LimitScope[];
}

/** Cache sizes and lifetimes. */
export interface GatewaySourcesOptions {
  /** Entries per cache; default 10 000. */
  max?: number;
  /** Lifetime of an entry that was found, ms; default 5 minutes. */
  ttlMs?: number;
  /** Lifetime of a miss (an unknown key), ms; default 10 s. */
  missTtlMs?: number;
}

type Entry<T> = Promise<T | undefined>;

/** A cache of lookups by key; concurrent misses share one query. */
class LookupCache<T extends object> {
  readonly #cache: LRUCache<string, Entry<T>>;
  readonly #missTtl: number;

  constructor(options: Required<GatewaySourcesOptions>) {
    this.#cache = new LRUCache<string, Entry<T>>({ max: options.max, ttl: options.ttlMs });
    this.#missTtl = options.missTtlMs;
  }

  get(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const held = this.#cache.get(key);
    if (held) return held;
    const entry = load().then(
      (value) => {
        // A miss is remembered briefly: long enough to absorb a flood of bad keys, short enough
        // that a record created by another instance soon shows up.
        if (value === undefined && this.#cache.get(key) === entry) this.#cache.set(key, entry, { ttl: this.#missTtl });
        return value;
      },
      (error: unknown) => {
        if (this.#cache.get(key) === entry) this.#cache.delete(key);
        throw error;
      },
    );
    this.#cache.set(key, entry);
    return entry;
  }

  delete(key: string): void {
    this.#cache.delete(key);
  }

  clear(): void {
    this.#cache.clear();
  }
}

function scoped(workspaceId: string, id: string): string {
  return `${workspaceId}\0${id}`;
}

/** The gateway's sources over the store, cached. */
export class GatewaySources {
  readonly #ctx: ManagementContext;
  readonly #keys: LookupCache<AdminIdentity>;
  readonly #providers: LookupCache<GatewayProvider>;
  readonly #guardrails: LookupCache<GuardrailDefinition>;
  readonly #configs: LookupCache<GatewayConfigRecord>;
  readonly #workspaces: LookupCache<WorkspaceContext>;
  /** The policies that may apply to each workspace's requests. */
  readonly #policies: LookupCache<PolicyRecord[]>;
  /** Opened plugin credentials by workspace: a request never decrypts in the steady state. */
  readonly #pluginCredentials: LookupCache<Record<string, Record<string, unknown>>>;
  readonly #unsubscribe: () => void;
  readonly #listeners = new Set<(event: ChangeEvent) => void>();
  /** Lookups that reached the store, for tests and metrics. */
  storeReads = 0;

  /** The gateway's ApiKeySource: workspace keys only. */
  readonly apiKeys = {
    verify: async (key: string): Promise<KeyIdentity | undefined> => {
      const identity = await this.verifyAny(key);
      return identity?.workspaceId ? (identity as KeyIdentity) : undefined;
    },
    whyRefused: async (key: string): Promise<string | undefined> => {
      const identity = await this.verifyAny(key);
      return identity && !identity.workspaceId
        ? "this is an organization admin key: it manages the organization through the admin API and cannot call models; use a key of a workspace (hooks accept it with x-gateway-workspace naming one of its workspaces)"
        : undefined;
    },
    verifyInWorkspace: async (key: string, workspaceId: string): Promise<KeyIdentity | undefined> => {
      const identity = await this.verifyAny(key);
      if (!identity || identity.workspaceId || identity.role !== "org_admin") return undefined;
      const context = await this.workspace(workspaceId);
      if (context?.organization.id !== identity.organizationId) return undefined;
      return { ...identity, workspaceId };
    },
  };

  /** The gateway's ProviderSource: providers of the scope's workspace, by slug or virtual key. */
  readonly providers = {
    get: (slug: string, scope?: Scope): Promise<GatewayProvider | undefined> => {
      const workspaceId = scope?.workspaceId;
      if (workspaceId === undefined) return Promise.resolve(undefined);
      return this.#providers.get(scoped(workspaceId, slug), () => this.#loadProvider(workspaceId, slug));
    },
  };

  /** The engine's GuardrailSource: guardrail records of the scope's workspace. */
  readonly guardrails = {
    get: (id: string, scope?: Scope): Promise<GuardrailDefinition | undefined> => {
      const workspaceId = scope?.workspaceId;
      if (workspaceId === undefined) return Promise.resolve(undefined);
      return this.#guardrails.get(scoped(workspaceId, id), async () => {
        this.storeReads++;
        const record = await this.#ctx.store.guardrails.get(workspaceId, id);
        return record && recordDefinition(record);
      });
    },
  };

  /** The gateway's ConfigSource: saved configs of the scope's workspace. */
  readonly configs = {
    get: (id: string, scope?: Scope): Promise<GatewayConfigRecord | undefined> => {
      const workspaceId = scope?.workspaceId;
      if (workspaceId === undefined) return Promise.resolve(undefined);
      return this.#configs.get(scoped(workspaceId, id), async () => {
        this.storeReads++;
        const record = await this.#ctx.store.configs.get(workspaceId, id);
        return record && { id: record.id, config: record.config, workspaceId };
      });
    },
  };

  /** The gateway's PluginCredentialSource: the plugin integrations serving a workspace, opened. */
  readonly pluginCredentials = {
    forWorkspace: async (workspaceId: string): Promise<Record<string, Record<string, unknown>>> =>
      (await this.#pluginCredentials.get(workspaceId, async () => {
        const context = await this.workspace(workspaceId);
        if (!context) return undefined;
        this.storeReads++;
        return pluginCredentialsOf(this.#ctx, context.organization.id, workspaceId);
      })) ?? {},
  };

  /** The gateway's PolicySource: the organisation's policies and the workspace's own. */
  readonly policies = {
    forWorkspace: async (workspaceId: string): Promise<PolicyRecord[]> =>
      (await this.#policies.get(workspaceId, async () => {
        const context = await this.workspace(workspaceId);
        if (!context) return undefined;
        this.storeReads++;
        return this.#ctx.store.policies.listApplying(context.organization.id, workspaceId);
      })) ?? [],
  };

  constructor(ctx: ManagementContext, options: GatewaySourcesOptions = {}) {
    this.#ctx = ctx;
    const settings = { max: options.max ?? 10_000, ttlMs: options.ttlMs ?? 300_000, missTtlMs: options.missTtlMs ?? 10_000 };
    this.#keys = new LookupCache(settings);
    this.#providers = new LookupCache(settings);
    this.#guardrails = new LookupCache(settings);
    this.#configs = new LookupCache(settings);
    this.#workspaces = new LookupCache(settings);
    this.#pluginCredentials = new LookupCache(settings);
    this.#policies = new LookupCache(settings);
    this.#unsubscribe = ctx.store.changes.subscribe((event) => this.#invalidate(event));
  }

  /** Any valid key, organization-level admin keys included (the admin API's authentication). */
  verifyAny(key: string): Promise<AdminIdentity | undefined> {
    if (typeof key !== "string" || key === "") return Promise.resolve(undefined);
    const hash = hashApiKey(key);
    return this.#keys.get(hash, async () => {
      this.storeReads++;
      const record = await this.#ctx.store.apiKeys.findByHash(hash);
      if (!record || !sameHash(record.hash, hash)) return undefined;
      return {
        id: record.id,
        workspaceId: record.workspace_id,
        name: record.name,
        organizationId: record.organization_id,
        role: record.role,
      };
    });
  }

  /** A workspace with its organization and effective settings. */
  workspace(workspaceId: string): Promise<WorkspaceContext | undefined> {
    return this.#workspaces.get(workspaceId, async () => {
      this.storeReads++;
      const workspace = await this.#ctx.store.workspaces.get(workspaceId);
      if (!workspace) return undefined;
      const organization = await this.#ctx.store.organizations.get(workspace.organization_id);
      if (!organization) return undefined;
      return {
        workspace,
        organization,
        settings: { ...organization.settings, ...workspace.settings },
        limits: workspace.rate_limit
          ? [
              {
                label: `workspace ${workspace.id}`,
                key: `workspace:${workspace.id}`,
                rate_limit: workspace.rate_limit,
                budget: null,
                spend: { workspace_id: workspace.id },
              },
            ]
          : [],
      };
    });
  }

  /** Tells `listener` about every change that dropped cached entries (routing caches listen here). */
  onInvalidate(listener: (event: ChangeEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Forgets every cached record, as when another process changed the store: after a transaction
   * that was rolled back, what was read while it ran must not stay.
   */
  forgetAll(): void {
    this.#invalidate({ entity: "external" });
  }

  /** Stops listening to the store. */
  close(): void {
    this.#unsubscribe();
  }

  async #loadProvider(workspaceId: string, slug: string): Promise<GatewayProvider | undefined> {
    this.storeReads++;
    const store = this.#ctx.store;
    const provider = await store.providers.findBySlug(workspaceId, slug);
    if (!provider) return undefined;
    const integration = await store.integrations.getWithSecret(provider.integration_id);
    const provisioning = integration && (await store.provisioning.get(integration.id, workspaceId));
    // Without provisioning the workspace has lost the integration: the provider no longer serves.
    if (!integration || !provisioning) return undefined;
    const credentials = openCredentials(this.#ctx, integration);
    const limits: LimitScope[] = [];
    if (provisioning.budget || provisioning.rate_limit) {
      limits.push({
        label: `integration "${integration.slug}" in workspace ${workspaceId}`,
        key: `provisioning:${integration.id}:${workspaceId}`,
        rate_limit: provisioning.rate_limit,
        budget: provisioning.budget,
        spend: { integration_id: integration.id, workspace_id: workspaceId },
      });
    }
    if (provider.budget || provider.rate_limit) {
      limits.push({
        label: `provider "${provider.slug}"`,
        key: `provider:${provider.id}`,
        rate_limit: provider.rate_limit,
        budget: provider.budget,
        spend: { provider_id: provider.id },
      });
    }
    return {
      slug: provider.slug,
      provider: integration.provider,
      ...(integration.base_url !== null && { baseUrl: integration.base_url }),
      ...(credentials?.api_key !== undefined && { apiKey: credentials.api_key }),
      ...(credentials?.headers !== undefined && { headers: credentials.headers }),
      ...(credentials?.options !== undefined && { options: credentials.options }),
      workspaceId,
      providerId: provider.id,
      integrationId: integration.id,
      organizationId: integration.organization_id,
      allowedModels: intersectModels(integration.allowed_models, provider.allowed_models),
      pricing: integration.pricing,
      limits,
      trusted: integration.workspace_id === null,
    };
  }

  #invalidate(event: ChangeEvent): void {
    switch (event.entity) {
      case "api_key":
        // Entries are keyed by hash, which the event does not carry; key changes are rare.
        this.#keys.clear();
        break;
      case "guardrail":
        if (event.workspace_id) this.#guardrails.delete(scoped(event.workspace_id, event.id));
        else this.#guardrails.clear();
        break;
      case "config":
        if (event.workspace_id) this.#configs.delete(scoped(event.workspace_id, event.id));
        else this.#configs.clear();
        break;
      case "provider":
      case "integration":
      case "provisioning":
        this.#providers.clear();
        break;
      case "policy":
        // An organisation's policy reaches every workspace; changes are rare.
        this.#policies.clear();
        break;
      case "plugin_integration":
        // An organization's may serve any of its workspaces; changes are rare.
        this.#pluginCredentials.clear();
        break;
      case "workspace":
      case "organization":
        this.#workspaces.clear();
        this.#pluginCredentials.clear();
        this.#providers.clear();
        this.#keys.clear();
        this.#guardrails.clear();
        this.#configs.clear();
        this.#policies.clear();
        break;
      case "external":
        this.#keys.clear();
        this.#pluginCredentials.clear();
        this.#providers.clear();
        this.#guardrails.clear();
        this.#configs.clear();
        this.#workspaces.clear();
        this.#policies.clear();
        break;
    }
    for (const listener of this.#listeners) listener(event);
  }
}
