/**
 * `guardgate replay --guardrail ID | --policy ID`: runs a saved guardrail or a policy over the
 * request logs whose bodies were kept, in the worker pool, and prints what it would have done: a
 * progress indicator while it runs (a line redrawn on a terminal, a line per tenth otherwise), then
 * the summary tables; `--save` keeps the report in the store, `--compare` sets it against a saved one.
 */
import { OPERATOR } from "../server/management/actor.js";
import { renderComparison, renderReport } from "../server/policies/replay-report.js";
import { type CommandArgs, type Flag, ORGANIZATION_FLAG, parseCommand, printHelp, STORE_PLUGIN_FLAGS } from "./args.js";
import type { Command } from "./command.js";
import { progressLine } from "./progress-line.js";
import { openStoreAccess, organizationOf, runCommand, storeOptionsOf, UsageError } from "./store-access.js";

const ARGS = {
  usage: [
    "replay (--guardrail ID --workspace ID | --policy ID) [--from TIME] [--to TIME] [--save NAME] [--compare REPORT] [--limit N] [--json] [--organization ID] [--plugin SPEC]... [--config FILE] [--data-dir DIR]",
  ],
  flags: {
    guardrail: { type: "string", value: "ID", help: "a saved guardrail, replayed over the logs of its --workspace" },
    policy: {
      type: "string",
      value: "ID",
      help: "a policy, replayed over the logs of the workspaces it reaches and in its scope",
    },
    workspace: { type: "string", value: "ID", help: "the guardrail's workspace; for a policy, only this workspace's logs" },
    from: { type: "string", value: "TIME", help: "the logs' time range, ISO 8601: from (inclusive)" },
    to: { type: "string", value: "TIME", help: "to (exclusive); all logs by default" },
    save: { type: "string", value: "NAME", help: "keep the report in the store under this name (its id is printed)" },
    compare: {
      type: "string",
      value: "REPORT",
      help: "a saved report's id: what this run would do differently on the logs both read",
    },
    limit: { type: "string", value: "N", help: "read at most N logs, newest first (default 100000)" },
    json: { type: "boolean", help: "print the report (and comparison) as JSON instead of tables" },
    organization: ORGANIZATION_FLAG,
    ...STORE_PLUGIN_FLAGS,
  },
  positionals: false,
  footer:
    "Only requests whose bodies were kept (the log_bodies setting) can be replayed; the others are\ncounted as skipped. The report format is in docs/policies.md.",
} as const satisfies CommandArgs<Record<string, Flag>>;

/** Replay's progress on stderr: the logs read so far on a terminal, then the share replayed. */
function progressWriter(tty: boolean) {
  const line = progressLine(tty, "replaying", "replayed");
  return {
    loaded: (count: number) => line.note(`reading logs: ${count}`),
    evaluated: (done: number, total: number) => line.update(done, total),
    end: () => line.end(),
  };
}

const replayCommand: Command = (argv) =>
  runCommand("replay", async () => {
    const { values, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    if ((values.guardrail === undefined) === (values.policy === undefined)) {
      throw new UsageError("give exactly one of --guardrail ID and --policy ID");
    }
    if (values.guardrail !== undefined && values.workspace === undefined) {
      throw new UsageError("--guardrail needs --workspace: a saved guardrail belongs to a workspace");
    }
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
      throw new UsageError("--limit must be a positive integer");
    const access = await openStoreAccess({ ...storeOptionsOf(values), executor: "pool" });
    const progress = progressWriter(process.stderr.isTTY === true);
    try {
      const organization = await organizationOf(access, values.organization);
      const run = await access.management.replays.run(
        OPERATOR,
        organization.id,
        {
          ...(values.guardrail !== undefined && { guardrail_id: values.guardrail }),
          ...(values.policy !== undefined && { policy_id: values.policy }),
          ...(values.workspace !== undefined && { workspace_id: values.workspace }),
          ...(values.from !== undefined && { from: values.from }),
          ...(values.to !== undefined && { to: values.to }),
          ...(values.save !== undefined && { save: values.save }),
          ...(values.compare !== undefined && { compare: values.compare }),
          ...(limit !== undefined && { limit }),
        },
        access.engine,
        progress,
      );
      progress.end();
      if (values.json) {
        process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
        return 0;
      }
      process.stdout.write(`${renderReport(run.report)}\n`);
      if (run.saved) process.stdout.write(`\nsaved as report ${run.saved.id} ("${run.saved.name}")\n`);
      if (run.comparison) process.stdout.write(`\n${renderComparison(run.comparison)}\n`);
      return 0;
    } finally {
      progress.end();
      await access.close();
    }
  });

export default replayCommand;
