/**
 * `guardgate keys`: API keys in the store, as the operator. `create` prints the new key once.
 * With `--url` (remote.ts), a running gateway's keys, as its admin key may see and change them.
 */
import { OPERATOR } from "../server/management/actor.js";
import { type ApiKey, ROLES, type Role } from "../server/store/types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { type AdminClient, REMOTE_FLAGS, remoteOf } from "./remote.js";
import { openStoreAccess, organizationOf, runCommand, UsageError, workspaceOf } from "./store-access.js";

const ARGS = {
  usage: [
    "keys create --name NAME [--role member|workspace_admin|org_admin] [--workspace ID] [--organization ID] [--json] [--data-dir DIR | --url URL --api-key KEY]",
    "keys list [--workspace ID] [--organization ID] [--data-dir DIR | --url URL --api-key KEY]",
    "keys revoke KEY_ID [--data-dir DIR | --url URL --api-key KEY]",
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
    ...REMOTE_FLAGS,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

/** What the actions need, from the local store or from a gateway. */
interface KeyBackend {
  /** The workspace a new key of `role` goes to: the one named, else none for org_admin, else the organization's first. */
  workspace(role: Role, named: string | undefined): Promise<string | null>;
  create(input: { name: string; role: Role; workspace_id: string | null }): Promise<{ key: string; api_key: ApiKey }>;
  list(workspace: string | undefined): Promise<ApiKey[]>;
  revoke(id: string): Promise<void>;
  close(): Promise<void>;
}

/** The actions over a gateway's admin API; the organization is the admin key's own. */
function remoteKeys(client: AdminClient, organization: string | undefined): KeyBackend {
  return {
    async workspace(role, named) {
      await client.checkOrganization(organization);
      return role === "org_admin" && named === undefined ? null : client.workspace(named);
    },
    async create(input) {
      const { key, ...api_key } = await client.call<ApiKey & { key: string }>("POST", "/api-keys", input);
      return { key, api_key };
    },
    async list(workspace) {
      await client.checkOrganization(organization);
      const query = workspace === undefined ? "" : `?workspace_id=${encodeURIComponent(workspace)}`;
      return (await client.call<{ data: ApiKey[] }>("GET", `/api-keys${query}`)).data;
    },
    revoke: (id) => client.call("DELETE", `/api-keys/${encodeURIComponent(id)}`),
    close: async () => {},
  };
}

/** The actions over the store of the data folder, as the operator. */
async function localKeys(dataDir: string | undefined, organizationId: string | undefined): Promise<KeyBackend> {
  const access = await openStoreAccess({ ...(dataDir && { dataDir }), checks: false });
  try {
    const organization = await organizationOf(access, organizationId);
    return {
      workspace: async (role, named) =>
        role === "org_admin" && !named ? null : (await workspaceOf(access, organization, named)).id,
      create: (input) => access.management.apiKeys.create(OPERATOR, organization.id, input),
      list: async (workspace) =>
        access.management.apiKeys.list(
          OPERATOR,
          organization.id,
          workspace ? (await workspaceOf(access, organization, workspace)).id : undefined,
        ),
      revoke: (id) => access.management.apiKeys.delete(OPERATOR, id),
      close: () => access.close(),
    };
  } catch (error) {
    await access.close();
    throw error;
  }
}

const keys: Command = (argv) =>
  runCommand("keys", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, ...rest] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (!["create", "list", "revoke"].includes(action))
      throw new UsageError(`unknown action "${action}"; use create, list or revoke`);
    if (action === "create") {
      if (!values.name) throw new UsageError("--name is required");
      if (!ROLES.includes(values.role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
    }
    const remote = remoteOf(values);
    const backend = remote ? remoteKeys(remote, values.organization) : await localKeys(values["data-dir"], values.organization);
    try {
      if (action === "create") {
        const role = values.role as Role;
        const workspaceId = await backend.workspace(role, values.workspace);
        const created = await backend.create({ name: values.name!, role, workspace_id: workspaceId });
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
        for (const key of await backend.list(values.workspace)) {
          process.stdout.write(
            `${key.id}  ${key.role.padEnd(15)}  ${(key.workspace_id ?? "(organization)").padEnd(24)}  ${key.hint}  ${key.name}\n`,
          );
        }
        return 0;
      }
      const [id] = rest;
      if (!id) throw new UsageError("revoke needs a key id (see `guardgate keys list`)");
      await backend.revoke(id);
      process.stderr.write(`guardgate keys: revoked ${id}\n`);
      return 0;
    } finally {
      await backend.close();
    }
  });

export default keys;
