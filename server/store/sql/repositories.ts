/** The repositories a SQL store shares with the other, over its driver, announcing through `announce`. */
import type { Store } from "../repository.js";
import type { GuardrailRecord, StoredConfig } from "../types.js";
import { Datasets, EvalRuns } from "./datasets.js";
import { Feedback } from "./feedback.js";
import { McpServers, McpToolPins } from "./mcp-servers.js";
import { PluginIntegrations } from "./plugin-integrations.js";
import { Policies, ReplayReports } from "./policies.js";
import { StoredResponses } from "./stored-responses.js";
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
  | "mcpServers"
  | "mcpToolPins"
  | "feedback"
  | "evalRuns"
  | "datasets"
  | "storedResponses"
>;

/** `datasets` is given when the store has its own (Postgres writes rows its own way). */
export function recordRepositories(db: Driver, announce: Announce, datasets = new Datasets(db)): RecordRepositories {
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
    mcpServers: new McpServers(db, announce),
    mcpToolPins: new McpToolPins(db, announce),
    feedback: new Feedback(db),
    evalRuns: new EvalRuns(db),
    datasets,
    storedResponses: new StoredResponses(db),
  };
}
