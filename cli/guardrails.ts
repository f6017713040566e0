/**
 * `guardgate guardrails apply FILE`: saves the guardrails of a JSON or YAML file into a workspace,
 * creating or updating each by id (a new version only when it changed), validated and gated by
 * plan exactly as the admin API would.
 */
import { isDeepStrictEqual } from "node:util";
import { OPERATOR } from "../server/management/actor.js";
import type { GuardrailInput } from "../server/management/guardrails.js";
import { type CommandArgs, type Flag, parseCommand, printHelp, STORE_PLUGIN_FLAGS } from "./args.js";
import type { Command } from "./command.js";
import { readRecordFile } from "./record-file.js";
import { openStoreAccess, organizationOf, runCommand, storeOptionsOf, UsageError, workspaceOf } from "./store-access.js";

const ARGS = {
  usage: ["guardrails apply FILE [--workspace ID] [--organization ID] [--plugin SPEC]... [--config FILE] [--data-dir DIR]"],
  entries: {
    FILE: 'JSON or YAML: one guardrail {id, name?, checks, side?, deny?, async?, ...}, a list of\nthem, or {"guardrails": [...]}. Each needs an id; it is created, or updated when it changed',
  },
  flags: {
    workspace: { type: "string", value: "ID", help: "the workspace (default: the organization's first)" },
    organization: { type: "string", value: "ID", help: "the organization (default: the only one)" },
    ...STORE_PLUGIN_FLAGS,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

const guardrails: Command = (argv) =>
  runCommand("guardrails", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, file] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (action !== "apply") throw new UsageError(`unknown action "${action}"; use apply`);
    if (!file) throw new UsageError("apply needs a FILE");
    const list = await readRecordFile<GuardrailInput>(file, { one: "guardrail", many: "guardrails" });
    const access = await openStoreAccess(storeOptionsOf(values));
    try {
      const organization = await organizationOf(access, values.organization);
      const workspace = await workspaceOf(access, organization, values.workspace);
      const service = access.management.guardrails;
      for (const input of list) {
        const id = input.id as string;
        const existing = await access.management.context.store.guardrails.get(workspace.id, id);
        const { id: _id, name, version: _version, ...definition } = input;
        if (!existing) {
          const record = await service.create(OPERATOR, workspace.id, input);
          process.stdout.write(`created ${record.id} (version ${record.version}) in workspace ${workspace.id}\n`);
        } else if (!isDeepStrictEqual(existing.definition, definition) || (name !== undefined && name !== existing.name)) {
          const record = await service.update(OPERATOR, workspace.id, id, input);
          process.stdout.write(`updated ${record.id} (version ${record.version}) in workspace ${workspace.id}\n`);
        } else {
          process.stdout.write(`unchanged ${id} (version ${existing.version}) in workspace ${workspace.id}\n`);
        }
      }
      return 0;
    } finally {
      await access.close();
    }
  });

export default guardrails;
