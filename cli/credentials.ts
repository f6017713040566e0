/**
 * `guardgate credentials`: the credentials the service holds for plugins (plugin integrations), as
 * the operator. Values come from stdin (a JSON object) or from environment variables, never from
 * the command line, where other users of the machine could read them; they are never printed.
 */
import { OPERATOR } from "../server/management/actor.js";
import type { PluginCredentials } from "../server/management/plugin-integrations.js";
import type { PluginIntegration, WorkspaceSelection } from "../server/store/types.js";
import { type CommandArgs, CONFIG_PLUGINS_FLAG, DATA_DIR_FLAG, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { openStoreAccess, organizationOf, runCommand, storeOptionsOf, workspaceOf } from "./store-access.js";
import { readStdin, UsageError } from "./usage-error.js";

const ARGS = {
  usage: [
    "credentials set PLUGIN_ID [--env KEY=VAR]... [--workspace ID | --workspaces all|ID,ID] [--plugin SPEC]... [--config FILE] [--organization ID] [--data-dir DIR]",
    "credentials list [--organization ID] [--data-dir DIR]",
    "credentials remove PLUGIN_ID [--workspace ID] [--organization ID] [--data-dir DIR]",
  ],
  entries: {
    set: "hold credentials for a plugin's checks (created, or replaced whole). The values are a\nJSON object on stdin, or --env KEY=VAR pairs taking each KEY from environment variable\nVAR. They are checked against the plugin's credentials schema, so the plugin must be\nloaded: built in, --plugin, or a plugin of the --config file",
    list: "plugin integrations: plugin, scope, workspaces served and the names of the keys held\n(never their values)",
    remove: "the plugin's checks get no credentials from the service from the next request",
  },
  flags: {
    env: {
      type: "string",
      multiple: true,
      value: "KEY=VAR",
      help: "take credential KEY from environment variable VAR; may be repeated",
    },
    workspace: { type: "string", value: "ID", help: "a workspace's own credentials, which win over the organization's there" },
    workspaces: {
      type: "string",
      value: "all|ID,ID",
      help: "for the organization's: the workspaces served (default all, present and future)",
    },
    organization: { type: "string", value: "ID", help: "the organization (default: the only one)" },
    plugin: { type: "string", multiple: true, value: "SPEC", help: "load this plugin (package name or path); may be repeated" },
    config: CONFIG_PLUGINS_FLAG,
    "data-dir": DATA_DIR_FLAG,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

/** The credentials to set, from `--env` pairs or stdin; a mistake names what, never a value. */
async function credentialsOf(pairs: string[] | undefined): Promise<PluginCredentials> {
  if (pairs?.length) {
    const credentials: PluginCredentials = {};
    for (const pair of pairs) {
      const [key, variable] = pair.split("=", 2);
      if (!key || !variable) throw new UsageError(`--env ${pair}: write KEY=VARIABLE`);
      const value = process.env[variable];
      if (value === undefined || value === "") throw new UsageError(`--env ${pair}: environment variable ${variable} is not set`);
      credentials[key] = value;
    }
    return credentials;
  }
  let value: unknown;
  try {
    value = JSON.parse(await readStdin("no credentials: pipe a JSON object on stdin or give --env KEY=VAR"));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError("stdin: is not a JSON object");
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new UsageError("stdin: is not a JSON object");
  return value as PluginCredentials;
}

function selectionOf(option: string | undefined): WorkspaceSelection | undefined {
  if (option === undefined) return undefined;
  if (option === "all") return "all";
  const ids = option
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  if (!ids.length) throw new UsageError("--workspaces: give all or a comma-separated list of workspace ids");
  return ids;
}

function line(record: PluginIntegration): string {
  const scope = record.workspace_id ? `workspace ${record.workspace_id}` : "organization";
  const served = record.workspace_id ? "" : record.workspaces === "all" ? "all workspaces" : record.workspaces.join(",");
  return `${record.id}  ${record.plugin.padEnd(20)}  ${scope.padEnd(28)}  ${served.padEnd(16)}  keys: ${record.credential_keys.join(", ")}`;
}

const credentials: Command = (argv) =>
  runCommand("credentials", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, pluginId] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (!["set", "list", "remove"].includes(action)) throw new UsageError(`unknown action "${action}"; use set, list or remove`);
    if (action !== "list" && !pluginId) throw new UsageError(`${action} needs a PLUGIN_ID (see \`guardgate plugins list\`)`);
    if (values.workspace !== undefined && values.workspaces !== undefined) {
      throw new UsageError("--workspace (a workspace's own) and --workspaces (the organization's) do not go together");
    }
    const given = action === "set" ? await credentialsOf(values.env) : undefined;
    const access = await openStoreAccess({ ...storeOptionsOf(values), checks: action === "set" });
    try {
      const organization = await organizationOf(access, values.organization);
      const service = access.management.pluginIntegrations;
      if (action === "list") {
        for (const record of await service.list(OPERATOR, organization.id)) process.stdout.write(`${line(record)}\n`);
        return 0;
      }
      const plugin = pluginId as string;
      const workspaceId = values.workspace === undefined ? null : (await workspaceOf(access, organization, values.workspace)).id;
      const existing = await access.management.context.store.pluginIntegrations.find(organization.id, workspaceId, plugin);
      const where = workspaceId ? `workspace ${workspaceId}` : `organization ${organization.id}`;
      if (action === "remove") {
        if (!existing) throw new UsageError(`${where} holds no credentials for plugin "${plugin}"`);
        await service.delete(OPERATOR, existing.id);
        process.stderr.write(`guardgate credentials: removed the credentials of plugin "${plugin}" from ${where}\n`);
        return 0;
      }
      const workspaces = selectionOf(values.workspaces);
      const record = existing
        ? await service.update(OPERATOR, existing.id, {
            credentials: given as PluginCredentials,
            ...(workspaces && { workspaces }),
          })
        : await service.create(OPERATOR, organization.id, {
            plugin,
            workspace_id: workspaceId,
            credentials: given as PluginCredentials,
            ...(workspaces && { workspaces }),
          });
      process.stderr.write(
        `guardgate credentials: ${existing ? "replaced" : "set"} the credentials of plugin "${plugin}" in ${where} (keys: ${record.credential_keys.join(", ")})\n`,
      );
      return 0;
    } finally {
      await access.close();
    }
  });

export default credentials;
