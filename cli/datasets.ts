/**
 * `guardgate datasets create|list|show|label|export`: evaluation datasets made from the store's
 * request logs (server/quality/datasets.ts). `export` streams JSONL to stdout or a file, a page of
 * rows at a time; its rows are `guardgate eval --data` rows as they are.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { OPERATOR } from "../server/management/actor.js";
import { Datasets } from "../server/quality/datasets.js";
import type { DatasetFilter, DatasetRecord } from "../server/store/dataset-types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, ORGANIZATION_FLAG, parseCommand, printHelp } from "./args.js";
import type { Command } from "./main.js";
import {
  feedbackFlag,
  openStoreAccess,
  organizationOf,
  runCommand,
  storeOptionsOf,
  UsageError,
  workspaceOf,
} from "./store-access.js";

const ARGS = {
  usage: [
    "datasets create --name NAME [--workspace ID] [--label-rule RULE] [--from TIME] [--to TIME] [--route R] [--model M]\n                          [--status 200,446] [--guardrail ID] [--check ID] [--verdict pass|fail] [--feedback-min N] [--feedback-max N]",
    "datasets list [--workspace ID]",
    "datasets show ID [--rows N]",
    "datasets label ID LOG_ID 0|1",
    "datasets export ID [--out FILE] [--redact-pii]",
  ],
  flags: {
    name: { type: "string", value: "NAME", help: "the dataset's name" },
    workspace: { type: "string", value: "ID", help: "the logs' workspace (default: the organization's first)" },
    "label-rule": {
      type: "string",
      value: "RULE",
      help: 'which rows get label 1, e.g. "feedback <= -5 or guardrail:no-injection failed"',
    },
    from: { type: "string", value: "TIME", help: "logs from this time (ISO 8601, inclusive)" },
    to: { type: "string", value: "TIME", help: "logs before this time (exclusive)" },
    route: { type: "string", value: "R", help: "only this route (/v1/chat/completions)" },
    model: { type: "string", value: "M", help: "only requests for this model" },
    status: { type: "string", value: "CODES", help: "only these statuses, comma-separated" },
    guardrail: { type: "string", value: "ID", help: "only logs where this guardrail ran" },
    check: { type: "string", value: "ID", help: "only logs where this check ran" },
    verdict: { type: "string", value: "pass|fail", help: "with --guardrail or --check: only this verdict" },
    "feedback-min": { type: "string", value: "N", help: "only logs with feedback of at least N (-10…10)" },
    "feedback-max": {
      type: "string",
      value: "N",
      help: "only logs with feedback of at most N (a negative N as --feedback-max=-5)",
    },
    rows: { type: "string", value: "N", help: "show: how many rows to print (default 10)" },
    out: { type: "string", value: "FILE", help: "export: write to FILE (mode 0600) instead of stdout" },
    "redact-pii": { type: "boolean", help: "export: replace personal data through default.pii" },
    json: { type: "boolean", help: "print records as JSON" },
    organization: ORGANIZATION_FLAG,
    "data-dir": DATA_DIR_FLAG,
  },
  footer: "Logs kept without bodies (log_bodies off) make no row; create says how many were skipped.",
} as const satisfies CommandArgs<Record<string, Flag>>;

function summary(d: DatasetRecord): string {
  return `${d.id}  ${d.name}  ${d.status}  rows ${d.rows} (label 1: ${d.positives})  skipped without body ${d.skipped.no_body}  ${d.workspace_id}  ${d.created_at}`;
}

const datasetsCommand: Command = (argv) =>
  runCommand("datasets", async () => {
    const { values, positionals, help } = parseCommand(ARGS, argv);
    const [action, ...rest] = positionals;
    if (help || !action) return printHelp(ARGS, help);
    if (!["create", "list", "show", "label", "export"].includes(action))
      throw new UsageError(`unknown action "${action}"; use create, list, show, label or export`);
    const access = await openStoreAccess(storeOptionsOf(values));
    try {
      const datasets = new Datasets(access.management.context);
      const organization = await organizationOf(access, values.organization);
      const print = (record: DatasetRecord) =>
        process.stdout.write(values.json ? `${JSON.stringify(record, null, 2)}\n` : `${summary(record)}\n`);
      switch (action) {
        case "create": {
          if (!values.name) throw new UsageError("--name is required");
          if (values.verdict !== undefined && values.verdict !== "pass" && values.verdict !== "fail")
            throw new UsageError("--verdict must be pass or fail");
          if (values.status !== undefined && !/^\d{3}(,\d{3})*$/.test(values.status))
            throw new UsageError("--status must be statuses separated by commas, e.g. 246,446");
          const workspace = await workspaceOf(access, organization, values.workspace);
          const min = feedbackFlag(values["feedback-min"], "--feedback-min");
          const max = feedbackFlag(values["feedback-max"], "--feedback-max");
          const filter: DatasetFilter = {
            ...(values.from && { from: values.from }),
            ...(values.to && { to: values.to }),
            ...(values.route && { route: values.route }),
            ...(values.model && { model: values.model }),
            ...(values.status && { status: values.status.split(",").map(Number) }),
            ...(values.guardrail && { guardrail_id: values.guardrail }),
            ...(values.check && { check_id: values.check }),
            ...(values.verdict && { verdict: values.verdict as "pass" | "fail" }),
            ...(min !== undefined && { feedback_min: min }),
            ...(max !== undefined && { feedback_max: max }),
          };
          const record = await datasets.create(OPERATOR, {
            name: values.name,
            workspace_id: workspace.id,
            filter,
            ...(values["label-rule"] && { label_rule: values["label-rule"] }),
          });
          print(record);
          if (record.skipped.no_body && !values.json)
            process.stderr.write(
              `${record.skipped.no_body} log(s) were skipped: they were logged without bodies (turn on the workspace's log_bodies to keep them)\n`,
            );
          return 0;
        }
        case "list": {
          const list = await datasets.list(OPERATOR, organization.id, values.workspace);
          if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          else for (const d of list) process.stdout.write(`${summary(d)}\n`);
          return 0;
        }
        case "show": {
          const [id] = rest;
          if (!id) throw new UsageError("show needs the dataset's id");
          const record = await datasets.get(OPERATOR, id);
          const count = values.rows === undefined ? 10 : Number(values.rows);
          if (!Number.isInteger(count) || count < 0 || count > 500)
            throw new UsageError("--rows must be an integer from 0 to 500");
          const rows = count ? await datasets.rows(OPERATOR, id, { limit: count }) : [];
          if (values.json) {
            process.stdout.write(`${JSON.stringify({ ...record, first_rows: rows }, null, 2)}\n`);
            return 0;
          }
          process.stdout.write(
            `${summary(record)}\nfilter ${JSON.stringify(record.filter)}\nlabel rule ${record.label_rule ?? "(none: every row 0)"}\n`,
          );
          for (const row of rows) {
            const failed = row.failed_checks.length ? ` failed ${row.failed_checks.join(",")}` : "";
            const feedback = row.feedback.length ? ` feedback ${row.feedback.join(",")}` : "";
            process.stdout.write(
              `${row.seq}  ${row.log_id}  label ${row.label}${failed}${feedback}  ${row.input.replace(/\s+/g, " ").slice(0, 80)}\n`,
            );
          }
          return 0;
        }
        case "label": {
          const [id, logId, label] = rest;
          if (!id || !logId || (label !== "0" && label !== "1")) throw new UsageError("label needs ID LOG_ID 0|1");
          print(await datasets.label(OPERATOR, id, logId, Number(label) as 0 | 1));
          return 0;
        }
        default: {
          const [id] = rest;
          if (!id) throw new UsageError("export needs the dataset's id");
          await datasets.get(OPERATOR, id);
          const out = values.out ? createWriteStream(values.out, { mode: 0o600 }) : process.stdout;
          const lines = datasets.export(OPERATOR, id, values["redact-pii"] ? { redact: access.engine } : {});
          for await (const line of lines) {
            if (!out.write(line)) await once(out, "drain");
          }
          if (values.out) {
            const file = out as ReturnType<typeof createWriteStream>;
            file.end();
            await once(file, "close");
          }
          return 0;
        }
      }
    } finally {
      await access.close();
    }
  });

export default datasetsCommand;
