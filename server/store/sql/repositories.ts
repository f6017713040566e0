/** The record repositories of a SQL store, over its driver, announcing through `announce`. */
import type { Store } from "../repository.js";
import type { GuardrailRecord, StoredConfig } from "../types.js";
import { PluginIntegrations } from "./plugin-integrations.js";
import { Policies, ReplayReports } from "./policies.js";
import {
  type Announce,
  ApiKeys,
  Integrations,
  Organizations,
  Providers,
  ProvisioningRecords,
  Versioned,
  Workspaces,
} from "./records.js";
import type { Driver } from "./table.js";

type RecordRepositories = Pick<
  Store,
  | "organizations"
  | "workspaces"
  | "apiKeys"
  | "integrations"
  | "provisioning"
  | "pluginIntegrations"
  | "providers"
  | "guardrails"
  | "configs"
  | "policies"
  | "replayReports"
>;

export function recordRepositories(db: Driver, announce: Announce): RecordRepositories {
  return {
    organizations: new Organizations(db, announce),
    workspaces: new Workspaces(db, announce),
    apiKeys: new ApiKeys(db, announce),
    integrations: new Integrations(db, announce),
    provisioning: new ProvisioningRecords(db, announce),
    pluginIntegrations: new PluginIntegrations(db, announce),
    providers: new Providers(db, announce),
    guardrails: new Versioned<GuardrailRecord>(db, announce, "guardrails"),
    configs: new Versioned<StoredConfig>(db, announce, "configs"),
    policies: new Policies(db, announce),
    replayReports: new ReplayReports(db),
  };
}
