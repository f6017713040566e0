/**
 * `guardgate keys`: API keys in the store, as the operator. `create` prints the new key once.
 */
import { OPERATOR } from "../server/management/actor.js";
import { ROLES, type Role } from "../server/store/types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./main.js";
import { openStoreAccess, organizationOf, runCommand, UsageError, workspaceOf } from "./store-access.js";

const ARGS = {
  usage: [
    "keys create --name NAME [--role member|workspace_admin|org_admin] [--workspace ID] [--organization ID] [--json] [--data-dir DIR]",
    "keys list [--workspace ID] [--organization ID] [--data-dir DIR]",
    "keys revoke KEY_ID [--data-dir DIR]",
  ],
  entries: {
    create:
      'a new key; the key is printed once (with --json, as {"key", "api_key"}). Member and\nworkspace_admin keys belong to a workspace (default: the organization\'s first);\norg_admin keys belong to the organization',
    list: "key records (never the keys)",
    revoke: "the key stops working at once, also in a running gateway",
  },
  flags: {
    name: { type: "string", value: "NAME", help: "the new key's name" },
    role: { type: "string", value: "ROLE", default: "member", help: "member (default), workspace_admin or org_admin" },
    workspace: { type: "string", value: "ID", help: "the key's workspace; with list, only that workspace's keys" },
    organization: { type: "string", value: "ID", help: "the organization (default: the only one)" },
    json: { type: "boolean", default: false, help: "print the created key as JSON" },
    "data-dir": DATA_DIR_FLAG,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

const keys: Command = (argv) =>
  runCommand("keys", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, ...rest] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (!["create", "list", "revoke"].includes(action))
      throw new UsageError(`unknown action "${action}"; use create, list or revoke`);
    const access = await openStoreAccess({ ...(values["data-dir"] && { dataDir: values["data-dir"] }) });
    try {
      const organization = await organizationOf(access, values.organization);
      if (action === "create") {
        if (!values.name) throw new UsageError("--name is required");
        const role = values.role as Role;
        if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
        const workspaceId =
          role === "org_admin" && !values.workspace ? null : (await workspaceOf(access, organization, values.workspace)).id;
        const created = await access.management.apiKeys.create(OPERATOR, organization.id, {
          name: values.name,
          role,
          workspace_id: workspaceId,
        });
        if (values.json) process.stdout.write(`${JSON.stringify({ key: created.key, api_key: created.api_key }, null, 2)}\n`);
        else {
          process.stdout.write(`${created.key}\n`);
          process.stderr.write(
            `guardgate keys: created ${created.api_key.id} (${role}${workspaceId ? ` in workspace ${workspaceId}` : ""}); the key is shown this once\n`,
          );
        }
        return 0;
      }
      if (action === "list") {
        const list = await access.management.apiKeys.list(
          OPERATOR,
          organization.id,
          values.workspace ? (await workspaceOf(access, organization, values.workspace)).id : undefined,
        );
        for (const key of list) {
          process.stdout.write(
            `${key.id}  ${key.role.padEnd(15)}  ${(key.workspace_id ?? "(organization)").padEnd(24)}  ${key.hint}  ${key.name}\n`,
          );
        }
        return 0;
      }
      const [id] = rest;
      if (!id) throw new UsageError("revoke needs a key id (see `guardgate keys list`)");
      await access.management.apiKeys.delete(OPERATOR, id);
      process.stderr.write(`guardgate keys: revoked ${id}\n`);
      return 0;
    } finally {
      await access.close();
    }
  });

export default keys;
