/**
 * `guardgate orgs`: the operator's side of organizations — the plan and the guardrails feature
 * flag (spec §5), which no API key may change, and new tenants with their first admin key.
 */
import { OPERATOR } from "../server/management/actor.js";
import { PLANS, type PlanName } from "../server/store/types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { openStoreAccess, runCommand, UsageError } from "./store-access.js";

const ARGS = {
  usage: [
    "orgs list [--data-dir DIR]",
    "orgs create --name NAME [--plan developer|production|enterprise] [--guardrails on|off] [--data-dir DIR]",
    "orgs set ORG_ID [--plan PLAN] [--guardrails on|off] [--workspace-integrations on|off] [--data-dir DIR]",
  ],
  entries: {
    list: "organizations with their plan and flags",
    create: "an organization with a first workspace and an org_admin key, printed once",
    set: "change the plan, the guardrails flag or whether workspaces may create their own integrations",
  },
  flags: {
    name: { type: "string", value: "NAME", help: "the new organization's name" },
    plan: { type: "string", value: "PLAN", help: "developer, production or enterprise" },
    guardrails: { type: "string", value: "on|off", help: "whether the organization's guardrails run" },
    "workspace-integrations": { type: "string", value: "on|off", help: "whether workspaces may create their own integrations" },
    "data-dir": DATA_DIR_FLAG,
  },
} as const satisfies CommandArgs<Record<string, Flag>>;

function flag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "on") return true;
  if (value === "off") return false;
  throw new UsageError(`${name} must be on or off`);
}

function plan(value: string | undefined): PlanName | undefined {
  if (value !== undefined && !PLANS.includes(value as PlanName))
    throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
  return value as PlanName | undefined;
}

const orgs: Command = (argv) =>
  runCommand("orgs", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, id] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (!["list", "create", "set"].includes(action)) throw new UsageError(`unknown action "${action}"; use list, create or set`);
    const chosenPlan = plan(values.plan);
    const guardrails = flag(values.guardrails, "--guardrails");
    const workspaceIntegrations = flag(values["workspace-integrations"], "--workspace-integrations");
    const access = await openStoreAccess({ ...(values["data-dir"] && { dataDir: values["data-dir"] }), checks: false });
    const service = access.management;
    try {
      if (action === "list") {
        for (const org of await service.organizations.list(OPERATOR)) {
          process.stdout.write(
            `${org.id}  ${org.plan.padEnd(11)}  guardrails ${org.guardrails_enabled ? "on " : "off"}  workspace integrations ${org.allow_workspace_integrations ? "on " : "off"}  ${org.name}\n`,
          );
        }
        return 0;
      }
      if (action === "create") {
        if (!values.name) throw new UsageError("--name is required");
        const org = await service.organizations.create(OPERATOR, {
          name: values.name,
          ...(chosenPlan && { plan: chosenPlan }),
          ...(guardrails !== undefined && { guardrails_enabled: guardrails }),
          ...(workspaceIntegrations !== undefined && { allow_workspace_integrations: workspaceIntegrations }),
        });
        const workspace = await service.workspaces.create(OPERATOR, org.id, { name: "Default workspace" });
        const admin = await service.apiKeys.create(OPERATOR, org.id, { name: "First admin key", role: "org_admin" });
        process.stdout.write(`${admin.key}\n`);
        process.stderr.write(
          `guardgate orgs: created ${org.id} (${org.plan}, guardrails ${org.guardrails_enabled ? "on" : "off"}) with workspace ${workspace.id}; its org_admin key is shown this once\n`,
        );
        return 0;
      }
      if (!id) throw new UsageError("set needs an organization id (see `guardgate orgs list`)");
      const updated = await service.organizations.update(OPERATOR, id, {
        ...(chosenPlan && { plan: chosenPlan }),
        ...(guardrails !== undefined && { guardrails_enabled: guardrails }),
        ...(workspaceIntegrations !== undefined && { allow_workspace_integrations: workspaceIntegrations }),
      });
      process.stderr.write(
        `guardgate orgs: ${updated.id} is on the ${updated.plan} plan, guardrails ${updated.guardrails_enabled ? "on" : "off"}\n`,
      );
      return 0;
    } finally {
      await access.close();
    }
  });

export default orgs;
