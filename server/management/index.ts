/**
 * The management service: every rule of the management plane over the store, one module per
 * aggregate. The admin API, the CLI, config-file seeding and bootstrapping all go through it, so a
 * rule holds whichever door a change comes in by.
 */
import { ApiKeys } from "./api-keys.js";
import { Configs } from "./configs.js";
import { type ManagementContext, type ManagementOptions, managementContext } from "./context.js";
import { Guardrails } from "./guardrails.js";
import { Integrations } from "./integrations.js";
import { Logs } from "./logs.js";
import { McpServers } from "./mcp-servers.js";
import { type CatalogModel, workspaceModels } from "./models.js";
import { Organizations } from "./organizations.js";
import { PluginIntegrations } from "./plugin-integrations.js";
import { Policies } from "./policies.js";
import { Providers } from "./providers.js";
import { Replays } from "./replays.js";
import { Workspaces } from "./workspaces.js";

export type { Actor } from "./actor.js";
export { OPERATOR } from "./actor.js";
export type { ManagementOptions } from "./context.js";

/** The management service. */
export class Management {
  readonly context: ManagementContext;
  readonly organizations: Organizations;
  readonly workspaces: Workspaces;
  readonly apiKeys: ApiKeys;
  readonly integrations: Integrations;
  readonly pluginIntegrations: PluginIntegrations;
  readonly providers: Providers;
  readonly guardrails: Guardrails;
  readonly configs: Configs;
  readonly policies: Policies;
  readonly replays: Replays;
  readonly logs: Logs;
  readonly mcpServers: McpServers;

  constructor(options: ManagementOptions) {
    this.context = managementContext(options);
    this.organizations = new Organizations(this.context);
    this.workspaces = new Workspaces(this.context);
    this.apiKeys = new ApiKeys(this.context);
    this.integrations = new Integrations(this.context);
    this.pluginIntegrations = new PluginIntegrations(this.context);
    this.providers = new Providers(this.context);
    this.guardrails = new Guardrails(this.context);
    this.configs = new Configs(this.context);
    this.policies = new Policies(this.context);
    this.replays = new Replays(this.context);
    this.logs = new Logs(this.context);
    this.mcpServers = new McpServers(this.context);
  }

  /** The models a workspace may use, with usage snippets against `baseUrl`. */
  models(workspaceId: string, baseUrl: string): Promise<CatalogModel[]> {
    return workspaceModels(this.context, workspaceId, baseUrl);
  }
}
