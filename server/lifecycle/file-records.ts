/**
 * Which records the config file manages (admin/file-managed.ts): found from the file as applied,
 * the way seeding finds them (guardrails and configs by workspace and id, policies by id,
 * providers by integration slug, plugin credentials by plugin and scope). Worked out again after
 * every start and reload, so a lookup during a request is a set lookup.
 */
import path from "node:path";
import type { FileManagedRecords, FileRecordKind } from "../admin/file-managed.js";
import type { GatewayFile } from "../sources/config-file.js";
import type { Store } from "../store/repository.js";
import { fileWorkspace } from "./reload.js";
import { integrationSlug } from "./seed.js";

/** The file's records by kind and key, for the admin API. */
export class FileRecordIndex implements FileManagedRecords {
  /** The config file, as an absolute path (what an error names). */
  readonly file: string;
  readonly editable: boolean;
  #keys = new Set<string>();

  constructor(file: string, editable: boolean) {
    this.file = path.resolve(file);
    this.editable = editable;
  }

  fileOf(kind: FileRecordKind, key: string): string | undefined {
    return this.#keys.has(`${kind}\0${key}`) ? this.file : undefined;
  }

  /** Works the keys out again for the file as now applied to the store. */
  async refresh(store: Store, file: GatewayFile): Promise<void> {
    const keys = new Set<string>();
    const [organization] = await store.organizations.list();
    if (organization) {
      const workspaces = await store.workspaces.list(organization.id);
      const scoped = (kind: FileRecordKind, workspace: string | undefined, id: string) => {
        const owner = fileWorkspace(workspaces, workspace);
        if (owner) keys.add(`${kind}\0${owner.id}\0${id}`);
      };
      for (const entry of file.guardrails ?? []) scoped("guardrail", entry.workspace, entry.id);
      for (const entry of file.configs ?? []) scoped("config", entry.workspace, entry.id);
      for (const entry of file.policies ?? []) keys.add(`policy\0${entry.id}`);
      for (const entry of file.providers ?? []) {
        const integration = await store.integrations.findBySlug(organization.id, integrationSlug(entry));
        if (integration) keys.add(`integration\0${integration.id}`);
      }
      for (const entry of file.plugin_credentials ?? []) {
        const workspaceId = entry.workspace === undefined ? null : fileWorkspace(workspaces, entry.workspace)?.id;
        if (workspaceId === undefined) continue;
        const integration = await store.pluginIntegrations.find(organization.id, workspaceId, entry.plugin);
        if (integration) keys.add(`plugin_integration\0${integration.id}`);
      }
    }
    this.#keys = keys;
  }
}
