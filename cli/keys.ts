/**
 * `guardgate keys`: API keys in the store, as the operator. `create` prints the new key once.
 */
import { parseArgs } from "node:util";
import { OPERATOR } from "../server/management/actor.js";
import { ROLES, type Role } from "../server/store/types.js";
import type { Command } from "./main.js";
import { openStoreAccess, organizationOf, runCommand, UsageError, workspaceOf } from "./store-access.js";

const HELP = `usage: guardgate keys create --name NAME [--role member|workspace_admin|org_admin] [--workspace ID] [--organization ID] [--json] [--data-dir DIR]
       guardgate keys list [--workspace ID] [--organization ID] [--data-dir DIR]
       guardgate keys revoke KEY_ID [--data-dir DIR]

  create      a new key; the key is printed once (with --json, as {"key", "api_key"}). Member and
              workspace_admin keys belong to a workspace (default: the organization's first);
              org_admin keys belong to the organization
  list        key records (never the keys)
  revoke      the key stops working at once, also in a running gateway
  --data-dir  the data folder (default GUARDGATE_DATA_DIR or ./.guardgate)`;

const keys: Command = (argv) =>
  runCommand("keys", async () => {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        name: { type: "string" },
        role: { type: "string", default: "member" },
        workspace: { type: "string" },
        organization: { type: "string" },
        json: { type: "boolean", default: false },
        "data-dir": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
    const [action, ...rest] = positionals;
    if (values.help || !action) {
      process.stdout.write(`${HELP}\n`);
      return values.help ? 0 : 2;
    }
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
