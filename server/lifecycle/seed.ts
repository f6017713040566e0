/**
 * Seeds the store from the config file of `guardgate serve --config FILE`, so a gateway can still
 * be run from a file. Idempotent: each record is created when missing, updated when the file
 * changed it, and left alone otherwise (no new version at every start). Everything goes through
 * the management service as the operator, so the file obeys the same validation and plan rules as
 * the admin API.
 *
 * - `api_keys`: member keys of their workspace, found again by hash.
 * - `providers`: an organization integration each (credentials sealed), provisioned to the
 *   provider's workspace, or to every workspace (and future ones) when it names none; the
 *   workspace's provider takes the file's slug.
 * - `guardrails`, `configs`: by id in their workspace.
 * - `policies`: by id; organisation-wide, or the workspace's own when the entry names one. A
 *   policy found again is saved again (its guardrails may have changed) and counted as updated
 *   only when something changed.
 * - `plugin_credentials`: a plugin integration each, the organization's (serving every workspace)
 *   or, when the entry names a workspace, that workspace's own; found again by plugin and scope.
 *
 * A `workspace` in the file is a workspace id, created in the organization when missing; records
 * without one, or with the file's `default`, go to the organization's first workspace.
 */
import { isDeepStrictEqual } from "node:util";
import { ConfigError, GuardgateError } from "../../core/index.js";
import { DEFAULT_WORKSPACE } from "../app.js";
import type { FilePluginCredentials, FilePolicy, FileProvider, GatewayFile } from "../sources/config-file.js";
import { isKnownProvider, unknownProviderProblem } from "../providers/catalog.js";
import { hashApiKey } from "../store/api-keys.js";
import { StoreError } from "../store/errors.js";
import type { Integration, IntegrationCredentials, Organization, Workspace } from "../store/types.js";
import { OPERATOR } from "../management/actor.js";
import type { SeedCounts, SeedReport } from "../admin/reload-report.js";
import type { Management } from "../management/index.js";
import { openCredentials } from "../management/integrations.js";
import { openPluginCredentials } from "../management/plugin-integrations.js";
import type { PolicyPatch } from "../management/policies.js";

const counts = (): SeedCounts => ({ created: 0, updated: 0, unchanged: 0 });

/**
 * Prefixes an error with where in the file its record is: a validation error's own path is
 * joined to the record's (`guardrails[0].checks[0].id`), other refusals follow the record's path.
 */
function at(path: string, label: string, error: unknown): unknown {
  const configError = error instanceof ConfigError ? error : (error as { configError?: unknown }).configError;
  if (configError instanceof ConfigError) {
    const problem = configError.path ? configError.message.slice(configError.path.length + 2) : configError.message;
    const where = configError.path
      ? configError.path.startsWith("[")
        ? `${path}${configError.path}`
        : `${path}.${configError.path}`
      : path;
    return new GuardgateError(configError.code, `config file: ${where}: ${problem}`, { cause: error });
  }
  if (error instanceof GuardgateError) {
    return new GuardgateError(error.code, `config file: ${path} (${label}): ${error.message}`, { cause: error });
  }
  return error;
}

/** The integration slug of a file provider: its own slug, or slug and workspace when it names one. */
export function integrationSlug(provider: FileProvider): string {
  const raw =
    provider.workspace && provider.workspace !== DEFAULT_WORKSPACE ? `${provider.slug}-${provider.workspace}` : provider.slug;
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Seeds the store from a config file; the store must hold an organization (bootstrap first). */
export async function seedFromFile(management: Management, file: GatewayFile): Promise<SeedReport> {
  const store = management.context.store;
  const [organization] = await store.organizations.list();
  if (!organization) throw new StoreError("store_empty", "the store holds no organization to seed the config file into");
  const report: SeedReport = {
    organization_id: organization.id,
    api_keys: counts(),
    providers: counts(),
    guardrails: counts(),
    configs: counts(),
    policies: counts(),
    plugin_credentials: counts(),
  };
  const workspaces = new Map<string, Workspace>();
  const workspaceOf = async (name: string | undefined): Promise<Workspace> => {
    const key = name ?? DEFAULT_WORKSPACE;
    const held = workspaces.get(key);
    if (held) return held;
    let workspace: Workspace | undefined;
    if (name === undefined || name === DEFAULT_WORKSPACE) {
      // The file's default workspace (named "default" or not named) is the organization's first,
      // unless a workspace is really called "default".
      const all = await store.workspaces.list(organization.id);
      workspace = all.find((w) => w.id === DEFAULT_WORKSPACE) ?? all[0];
      workspace ??= await management.workspaces.create(OPERATOR, organization.id, { name: "Default workspace" });
    } else {
      workspace = await store.workspaces.get(name);
      if (workspace && workspace.organization_id !== organization.id) {
        throw new StoreError("workspace_elsewhere", `workspace "${name}" belongs to another organization`);
      }
      workspace ??= await management.workspaces.create(OPERATOR, organization.id, { id: name, name });
    }
    workspaces.set(key, workspace);
    return workspace;
  };

  for (const [index, entry] of (file.api_keys ?? []).entries()) {
    try {
      const workspace = await workspaceOf(entry.workspace);
      const existing = await store.apiKeys.findByHash(hashApiKey(entry.key));
      if (existing) {
        if (existing.workspace_id !== workspace.id) {
          throw new StoreError("key_elsewhere", `the key is already a key of workspace ${existing.workspace_id}`);
        }
        report.api_keys.unchanged++;
        continue;
      }
      await management.apiKeys.create(OPERATOR, organization.id, {
        name: entry.name ?? `config file key ${index}`,
        role: "member",
        workspace_id: workspace.id,
        key: entry.key,
      });
      report.api_keys.created++;
    } catch (error) {
      throw at(`api_keys[${index}]`, entry.name ?? "a key", error);
    }
  }

  for (const [index, entry] of (file.providers ?? []).entries()) {
    try {
      await seedProvider(management, organization, entry, workspaceOf, report.providers);
    } catch (error) {
      throw at(`providers[${index}]`, `"${entry.slug}"`, error);
    }
  }

  for (const [index, entry] of (file.guardrails ?? []).entries()) {
    try {
      const {
        workspace: name,
        id,
        name: title,
        ...definition
      } = entry as Record<string, unknown> & {
        id: string;
        workspace?: string;
        name?: string;
      };
      const workspace = await workspaceOf(name);
      const existing = await store.guardrails.get(workspace.id, id);
      const input = { ...definition, id, ...(typeof title === "string" && { name: title }) } as Parameters<
        Management["guardrails"]["create"]
      >[2];
      if (!existing) {
        await management.guardrails.create(OPERATOR, workspace.id, input);
        report.guardrails.created++;
      } else if (!isDeepStrictEqual(existing.definition, definition) || (typeof title === "string" && title !== existing.name)) {
        await management.guardrails.update(OPERATOR, workspace.id, id, input);
        report.guardrails.updated++;
      } else report.guardrails.unchanged++;
    } catch (error) {
      throw at(`guardrails[${index}]`, `"${entry.id}"`, error);
    }
  }

  for (const [index, entry] of (file.configs ?? []).entries()) {
    try {
      const workspace = await workspaceOf(entry.workspace);
      const existing = await store.configs.get(workspace.id, entry.id);
      if (!existing) {
        await management.configs.create(OPERATOR, workspace.id, { id: entry.id, config: entry.config });
        report.configs.created++;
      } else if (!isDeepStrictEqual(existing.config, entry.config)) {
        await management.configs.update(OPERATOR, workspace.id, entry.id, { config: entry.config });
        report.configs.updated++;
      } else report.configs.unchanged++;
    } catch (error) {
      throw at(`configs[${index}].config`, `"${entry.id}"`, error);
    }
  }

  for (const [index, entry] of (file.policies ?? []).entries()) {
    try {
      await seedPolicy(management, organization, entry, workspaceOf, report.policies);
    } catch (error) {
      throw at(`policies[${index}]`, `"${entry.id}"`, error);
    }
  }

  for (const [index, entry] of (file.plugin_credentials ?? []).entries()) {
    try {
      await seedPluginCredentials(management, organization, entry, workspaceOf, report.plugin_credentials);
    } catch (error) {
      throw at(`plugin_credentials[${index}]`, `plugin "${entry.plugin}"`, error);
    }
  }
  return report;
}

/** Creates a file policy, or saves it again and counts whether that changed it. */
async function seedPolicy(
  management: Management,
  organization: Organization,
  entry: FilePolicy,
  workspaceOf: (name: string | undefined) => Promise<Workspace>,
  tally: SeedCounts,
): Promise<void> {
  const { workspace: name, id, scope, ...rest } = entry;
  const owner = name === undefined ? null : (await workspaceOf(name)).id;
  const fileScope = scope && {
    ...scope,
    ...(scope.workspaces && { workspaces: await Promise.all(scope.workspaces.map(async (w) => (await workspaceOf(w)).id)) }),
  };
  const body = { ...rest, ...(fileScope && { scope: fileScope }) } as PolicyPatch;
  const existing = await management.context.store.policies.get(id);
  if (!existing) {
    await management.policies.create(OPERATOR, organization.id, { ...body, id, workspace_id: owner });
    tally.created++;
    return;
  }
  if (existing.organization_id !== organization.id || existing.workspace_id !== owner) {
    throw new StoreError("policy_elsewhere", `policy "${id}" already exists for ${existing.workspace_id ?? "the organization"}`);
  }
  const updated = await management.policies.update(OPERATOR, id, body);
  const same = (["name", "mode", "scope", "input_guardrails", "output_guardrails"] as const).every((key) =>
    isDeepStrictEqual(updated[key], existing[key]),
  );
  if (same) tally.unchanged++;
  else tally.updated++;
}

async function seedPluginCredentials(
  management: Management,
  organization: Organization,
  entry: FilePluginCredentials,
  workspaceOf: (name: string | undefined) => Promise<Workspace>,
  tally: SeedCounts,
): Promise<void> {
  const store = management.context.store;
  const workspaceId = entry.workspace === undefined ? null : (await workspaceOf(entry.workspace)).id;
  const existing = await store.pluginIntegrations.find(organization.id, workspaceId, entry.plugin);
  if (!existing) {
    await management.pluginIntegrations.create(OPERATOR, organization.id, {
      plugin: entry.plugin,
      workspace_id: workspaceId,
      credentials: entry.credentials,
    });
    tally.created++;
    return;
  }
  const sealed = await store.pluginIntegrations.getWithSecret(existing.id);
  const held = sealed ? openPluginCredentials(management.context, sealed) : undefined;
  if (isDeepStrictEqual(held, entry.credentials) && (workspaceId !== null || existing.workspaces === "all")) {
    tally.unchanged++;
    return;
  }
  await management.pluginIntegrations.update(OPERATOR, existing.id, {
    credentials: entry.credentials,
    ...(workspaceId === null && { workspaces: "all" as const }),
  });
  tally.updated++;
}

async function seedProvider(
  management: Management,
  organization: Organization,
  entry: FileProvider,
  workspaceOf: (name: string | undefined) => Promise<Workspace>,
  tally: SeedCounts,
): Promise<void> {
  const store = management.context.store;
  // Checked here under the file's own paths (provider, options.X), as at start: the integration
  // would name the admin API's (credentials.options.X). A reload seeds without the start-up checks.
  if (!isKnownProvider(entry.provider)) throw new ConfigError("provider", unknownProviderProblem(entry.provider));
  management.context.checkProviderOptions(entry.provider, entry.options, "options");
  const slug = integrationSlug(entry);
  const credentials: IntegrationCredentials | null =
    entry.api_key !== undefined || entry.headers !== undefined || entry.options !== undefined
      ? {
          ...(entry.api_key !== undefined && { api_key: entry.api_key }),
          ...(entry.headers !== undefined && { headers: entry.headers }),
          ...(entry.options !== undefined && { options: entry.options }),
        }
      : null;
  // A provider naming no workspace serves every workspace, present and future, as the file says.
  const everywhere = entry.workspace === undefined;
  let integration: Integration | undefined = await store.integrations.findBySlug(organization.id, slug);
  let outcome: keyof SeedCounts = "unchanged";
  if (!integration) {
    integration = await management.integrations.create(OPERATOR, organization.id, {
      slug,
      name: entry.slug,
      provider: entry.provider,
      base_url: entry.base_url ?? null,
      credentials,
      auto_provision: everywhere ? { budget: null, rate_limit: null } : null,
    });
    outcome = "created";
  } else {
    const sealed = await store.integrations.getWithSecret(integration.id);
    const held = sealed ? (openCredentials(management.context, sealed) ?? null) : null;
    if (
      integration.provider !== entry.provider ||
      integration.base_url !== (entry.base_url ?? null) ||
      !isDeepStrictEqual(held, credentials)
    ) {
      integration = await management.integrations.update(OPERATOR, integration.id, {
        provider: entry.provider,
        base_url: entry.base_url ?? null,
        credentials,
      });
      outcome = "updated";
    }
  }
  const targets = everywhere ? await store.workspaces.list(organization.id) : [await workspaceOf(entry.workspace)];
  for (const workspace of targets) {
    if (await store.provisioning.get(integration.id, workspace.id)) continue;
    await management.integrations.provision(OPERATOR, integration.id, workspace.id, {}, entry.slug);
    if (outcome === "unchanged") outcome = "updated";
  }
  tally[outcome]++;
}
