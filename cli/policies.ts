/**
 * `guardgate policies apply FILE | list | delete ID`: policies in the store, as the operator. Apply
 * creates or updates each policy of a JSON or YAML file by id, validated and gated by plan exactly
 * as the admin API would. With `--url` (remote.ts), a running gateway's policies, through its
 * admin API.
 */
import { OPERATOR } from "../server/management/actor.js";
import type { PolicyInput, PolicyPatch } from "../server/management/policies.js";
import { policyCreateSchema } from "../server/management/schemas.js";
import { compileValidator } from "../server/schema.js";
import type { Policy } from "../server/store/types.js";
import { type CommandArgs, type Flag, ORGANIZATION_FLAG, parseCommand, printHelp, STORE_PLUGIN_FLAGS } from "./args.js";
import type { Command } from "./command.js";
import { readRecordFile } from "./record-file.js";
import { type AdminClient, REMOTE_FLAGS, remoteOf } from "./remote.js";
import { openStoreAccess, organizationOf, runCommand, storeOptionsOf, UsageError } from "./store-access.js";

const ARGS = {
  usage: [
    "policies apply FILE [--organization ID] [--plugin SPEC]... [--config FILE] [--data-dir DIR | --url URL --api-key KEY]",
    "policies list [--organization ID] [--data-dir DIR | --url URL --api-key KEY]",
    "policies delete ID [--data-dir DIR | --url URL --api-key KEY]",
  ],
  entries: {
    "apply FILE":
      'JSON or YAML: one policy {id, name?, workspace_id?, mode?, scope?, input_guardrails?,\noutput_guardrails?}, a list of them, or {"policies": [...]}; each needs an id and is\ncreated, or updated when it exists (docs/policies.md)',
    list: "the organization's policies: id, owner, mode, scope, guardrails",
    "delete ID": "removes a policy; its guardrails stop applying from the next request",
  },
  flags: {
    organization: ORGANIZATION_FLAG,
    ...STORE_PLUGIN_FLAGS,
    ...REMOTE_FLAGS,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

/** What the actions need, from the local store or from a gateway. */
interface PolicyBackend {
  list(): Promise<Policy[]>;
  /** The policy of this organization with that id, if there is one. */
  find(id: string): Promise<Policy | undefined>;
  create(input: PolicyInput): Promise<unknown>;
  update(id: string, patch: PolicyPatch): Promise<unknown>;
  delete(id: string): Promise<unknown>;
  close(): Promise<void>;
}

/** The actions over a gateway's admin API; the organization is the admin key's own. */
async function remotePolicies(client: AdminClient, organization: string | undefined): Promise<PolicyBackend> {
  await client.checkOrganization(organization);
  const path = (id: string) => `/policies/${encodeURIComponent(id)}`;
  return {
    list: async () => (await client.call<{ data: Policy[] }>("GET", "/policies")).data,
    find: async (id) => {
      try {
        return await client.call<Policy>("GET", path(id));
      } catch (error) {
        if ((error as { code?: string }).code === "not_found") return undefined;
        throw error;
      }
    },
    create: (input) => client.call("POST", "/policies", input),
    update: (id, patch) => client.call("PATCH", path(id), patch),
    delete: (id) => client.call("DELETE", path(id)),
    close: async () => {},
  };
}

/** The admin API's body schema of a new policy: an update from a file is held to it as well. */
const validatePolicy = compileValidator<PolicyInput>(policyCreateSchema);

/** The policies of `file`, each checked as the admin API checks a body, so a misspelt scope key is refused, not dropped. */
async function policiesOf(file: string): Promise<PolicyInput[]> {
  const list = await readRecordFile<PolicyInput>(file, { one: "policy", many: "policies" });
  list.forEach((input, index) => validatePolicy(input, `${file}: policy ${index}`));
  return list;
}

const policies: Command = (argv) =>
  runCommand("policies", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, argument] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (!["apply", "list", "delete"].includes(action))
      throw new UsageError(`unknown action "${action}"; use apply, list or delete`);
    if (action !== "list" && !argument) throw new UsageError(`${action} needs ${action === "apply" ? "a FILE" : "a policy ID"}`);
    const list = action === "apply" ? await policiesOf(argument as string) : [];
    const remote = remoteOf(values);
    const service: PolicyBackend = remote
      ? await remotePolicies(remote, values.organization)
      : await localPolicies(values, action === "apply");
    try {
      if (action === "list") {
        for (const policy of await service.list()) {
          const scope = Object.entries(policy.scope)
            .map(([key, ids]) => `${key}=${(ids as string[]).join(",")}`)
            .join(" ");
          const guardrails = [...policy.input_guardrails, ...policy.output_guardrails].map((g) => g.id).join(",");
          process.stdout.write(
            `${policy.id}  ${policy.workspace_id ?? "organization"}  ${policy.mode}  ${scope || "all requests"}  ${guardrails}\n`,
          );
        }
        return 0;
      }
      if (action === "delete") {
        await service.delete(argument as string);
        process.stdout.write(`deleted policy ${argument}\n`);
        return 0;
      }
      for (const input of list) {
        const id = input.id as string;
        const existing = await service.find(id);
        if (existing) {
          if ((input.workspace_id ?? null) !== existing.workspace_id) {
            throw new UsageError(
              `policy "${id}" belongs to ${existing.workspace_id ?? "the organization"}; its owner cannot change`,
            );
          }
          const { id: _id, workspace_id: _owner, ...patch } = input;
          await service.update(id, patch);
          process.stdout.write(`updated policy ${id}\n`);
        } else {
          await service.create(input);
          process.stdout.write(`created policy ${id}\n`);
        }
      }
      return 0;
    } finally {
      await service.close();
    }
  });

/** The actions over the store of the data folder, as the operator. */
async function localPolicies(
  values: Parameters<typeof storeOptionsOf>[0] & { organization?: string | undefined },
  checks: boolean,
) {
  const access = await openStoreAccess({ ...storeOptionsOf(values), checks });
  try {
    const organization = await organizationOf(access, values.organization);
    const service = access.management.policies;
    return {
      list: () => service.list(OPERATOR, organization.id),
      find: async (id: string) => {
        const found = await access.management.context.store.policies.get(id);
        return found && found.organization_id === organization.id ? found : undefined;
      },
      create: (input: PolicyInput) => service.create(OPERATOR, organization.id, input),
      update: (id: string, patch: PolicyPatch) => service.update(OPERATOR, id, patch),
      delete: (id: string) => service.delete(OPERATOR, id),
      close: () => access.close(),
    } satisfies PolicyBackend;
  } catch (error) {
    await access.close();
    throw error;
  }
}

export default policies;
