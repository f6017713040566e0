/**
 * Reloading the config file without a restart (SIGHUP, `POST /admin/v1/reload`). The file is read
 * and validated again, then applied in one store transaction: its records are seeded as at start
 * (created or updated by id and slug), and the records the previously applied file seeded that the
 * new one no longer holds are deleted. Any refusal rolls the whole transaction back: the old
 * records stay, and the error names the file and the record. Requests in flight are untouched:
 * they hold the routing they started with; the next ones see the new records.
 *
 * What the file says about the process itself (store, redis, metrics, plugins, models, settings)
 * is read at start only: a change there is reported as needing a restart, not applied.
 */
import { isDeepStrictEqual } from "node:util";
import type { ReloadReport } from "../admin/reload-report.js";
import { DEFAULT_WORKSPACE } from "../app.js";
import { type GatewayFile, loadGatewayFile } from "../sources/config-file.js";
import { OPERATOR } from "../management/actor.js";
import type { Management } from "../management/index.js";
import type { GatewaySources } from "../management/gateway-sources.js";
import { hashApiKey } from "../store/api-keys.js";
import { ManagementError } from "../store/errors.js";
import type { Store } from "../store/repository.js";
import type { Organization, Workspace } from "../store/types.js";
import { integrationSlug, seedFromFile } from "./seed.js";

/** The file's keys that only a restart applies. */
const PROCESS_KEYS = ["store", "redis", "metrics", "plugins", "models", "settings", "mcp_servers"] as const;

/** The workspace a file record names, as seeding found or made it; undefined when there is none. */
export function fileWorkspace(all: Workspace[], name: string | undefined): Workspace | undefined {
  if (name === undefined || name === DEFAULT_WORKSPACE) return all.find((w) => w.id === DEFAULT_WORKSPACE) ?? all[0];
  return all.find((w) => w.id === name);
}

/** Deletes what `previous` seeded and `next` no longer holds; names what it deleted. */
async function removeDropped(
  management: Management,
  organization: Organization,
  previous: GatewayFile,
  next: GatewayFile,
): Promise<ReloadReport["removed"]> {
  const store = management.context.store;
  const workspaces = await store.workspaces.list(organization.id);
  const removed: ReloadReport["removed"] = {
    api_keys: [],
    providers: [],
    guardrails: [],
    configs: [],
    policies: [],
    plugin_credentials: [],
  };
  const scoped = (workspace: string | undefined, id: string) => `${fileWorkspace(workspaces, workspace)?.id}\0${id}`;

  const keys = new Set((next.api_keys ?? []).map((k) => k.key));
  for (const entry of previous.api_keys ?? []) {
    if (keys.has(entry.key)) continue;
    const record = await store.apiKeys.findByHash(hashApiKey(entry.key));
    if (!record) continue;
    await management.apiKeys.delete(OPERATOR, record.id);
    // The key itself is a secret: the report names the record.
    removed.api_keys.push(entry.name ?? record.id);
  }

  const slugs = new Set((next.providers ?? []).map(integrationSlug));
  for (const entry of previous.providers ?? []) {
    const slug = integrationSlug(entry);
    if (slugs.has(slug)) continue;
    const integration = await store.integrations.findBySlug(organization.id, slug);
    if (!integration) continue;
    await management.integrations.delete(OPERATOR, integration.id);
    removed.providers.push(entry.slug);
  }

  // Policies before guardrails and configs: nothing refers to a policy.
  const policies = new Set((next.policies ?? []).map((p) => p.id));
  for (const entry of previous.policies ?? []) {
    if (policies.has(entry.id) || !(await store.policies.get(entry.id))) continue;
    await management.policies.delete(OPERATOR, entry.id);
    removed.policies.push(entry.id);
  }

  // Configs before guardrails: a config may name a guardrail.
  const configs = new Set((next.configs ?? []).map((c) => scoped(c.workspace, c.id)));
  for (const entry of previous.configs ?? []) {
    const workspace = fileWorkspace(workspaces, entry.workspace);
    if (!workspace || configs.has(scoped(entry.workspace, entry.id)) || !(await store.configs.get(workspace.id, entry.id)))
      continue;
    await management.configs.delete(OPERATOR, workspace.id, entry.id);
    removed.configs.push(entry.id);
  }

  const guardrails = new Set((next.guardrails ?? []).map((g) => scoped(g.workspace, g.id)));
  for (const entry of previous.guardrails ?? []) {
    const workspace = fileWorkspace(workspaces, entry.workspace);
    if (!workspace || guardrails.has(scoped(entry.workspace, entry.id)) || !(await store.guardrails.get(workspace.id, entry.id)))
      continue;
    await management.guardrails.delete(OPERATOR, workspace.id, entry.id);
    removed.guardrails.push(entry.id);
  }

  const scopes = new Set(
    (next.plugin_credentials ?? []).map((p) => `${p.plugin}\0${p.workspace === undefined ? "" : scoped(p.workspace, "")}`),
  );
  for (const entry of previous.plugin_credentials ?? []) {
    if (scopes.has(`${entry.plugin}\0${entry.workspace === undefined ? "" : scoped(entry.workspace, "")}`)) continue;
    const workspaceId = entry.workspace === undefined ? null : (fileWorkspace(workspaces, entry.workspace)?.id ?? null);
    if (entry.workspace !== undefined && workspaceId === null) continue;
    const integration = await store.pluginIntegrations.find(organization.id, workspaceId, entry.plugin);
    if (!integration) continue;
    await management.pluginIntegrations.delete(OPERATOR, integration.id);
    removed.plugin_credentials.push(entry.plugin);
  }
  return removed;
}

/** Options of the reloader. */
export interface ReloaderOptions {
  /** The config file's path, as given to `serve --config`. */
  path: string;
  /** The file as applied at start. */
  applied: GatewayFile;
  store: Store;
  management: Management;
  sources: GatewaySources;
}

/** Reloads the config file, one reload at a time. */
export class ConfigReloader {
  readonly path: string;
  #applied: GatewayFile;
  readonly #options: ReloaderOptions;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ReloaderOptions) {
    this.path = options.path;
    this.#applied = options.applied;
    this.#options = options;
  }

  /** The file as last applied. */
  get applied(): GatewayFile {
    return this.#applied;
  }

  /** Reads the file again and applies it; rejects, changing nothing, when it is refused. */
  reload(): Promise<ReloadReport> {
    // Two reloads at once (a SIGHUP while an admin asks) would each compare against a stale file.
    const run = this.#queue.then(
      () => this.#reload(),
      () => this.#reload(),
    );
    this.#queue = run.catch(() => {});
    return run;
  }

  async #reload(): Promise<ReloadReport> {
    const { store, management, sources } = this.#options;
    const refused = (error: unknown): ManagementError => {
      const message = error instanceof Error ? error.message : String(error);
      return new ManagementError("reload_refused", `${this.path}: refused, nothing changed: ${message}`, { cause: error });
    };
    let next: GatewayFile;
    try {
      next = (await loadGatewayFile(this.path)).file;
    } catch (error) {
      throw refused(error);
    }
    const previous = this.#applied;
    const apply = async () => {
      const seeded = await seedFromFile(management, next);
      const [organization] = await store.organizations.list();
      const removed = await removeDropped(management, organization!, previous, next);
      return { seeded, removed };
    };
    let changes: Pick<ReloadReport, "seeded" | "removed">;
    try {
      changes = await (store.atomically ? store.atomically(apply) : apply());
    } catch (error) {
      // Caches may hold what the rolled-back transaction wrote: read everything again.
      sources.forgetAll();
      throw refused(error);
    }
    this.#applied = next;
    return {
      file: this.path,
      ...changes,
      restart_needed: PROCESS_KEYS.filter((key) => !isDeepStrictEqual(previous[key], next[key])),
    };
  }
}

/** One line for the log: what a reload changed, by kind. */
export function describeReload(report: ReloadReport): string {
  const kinds = ["api_keys", "providers", "guardrails", "configs", "policies", "plugin_credentials"] as const;
  const parts = kinds.map((kind) => {
    const c = report.seeded[kind];
    return `${kind}: ${c.created} created, ${c.updated} updated, ${report.removed[kind].length} removed, ${c.unchanged} unchanged`;
  });
  const restart = report.restart_needed.length
    ? `; ${report.restart_needed.join(", ")} changed but apply only at the next start`
    : "";
  return `config file ${report.file} reloaded (${parts.join("; ")})${restart}`;
}
