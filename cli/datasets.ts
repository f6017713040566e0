/**
 * `guardgate datasets create|list|show|label|export`: evaluation datasets made from the store's
 * request logs (server/quality/datasets.ts). `export` streams JSONL to stdout or a file, a page of
 * rows at a time; its rows are `guardgate eval --data` rows as they are. With `--url` (remote.ts),
 * a running gateway's datasets, through its admin API.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { OPERATOR } from "../server/management/actor.js";
import { type DatasetInput, Datasets } from "../server/quality/datasets.js";
import type { DatasetFilter, DatasetRecord, DatasetRow } from "../server/store/dataset-types.js";
import { type CommandArgs, DATA_DIR_FLAG, type Flag, ORGANIZATION_FLAG, parseCommand, printHelp } from "./args.js";
import type { Command } from "./command.js";
import { type AdminClient, REMOTE_FLAGS, remoteOf } from "./remote.js";
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
    "datasets ... [--data-dir DIR | --url URL --api-key KEY]",
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
    ...REMOTE_FLAGS,
  },
  footer: "Logs kept without bodies (log_bodies off) make no row; create says how many were skipped.",
} as const satisfies CommandArgs<Record<string, Flag>>;

/** What the actions need, from the local store or from a gateway. */
interface DatasetBackend {
  /** The workspace a new dataset reads: the one named, else the organization's first (the key's own, remotely). */
  workspace(named: string | undefined): Promise<string>;
  create(input: DatasetInput): Promise<DatasetRecord>;
  list(workspace: string | undefined): Promise<DatasetRecord[]>;
  get(id: string): Promise<DatasetRecord>;
  rows(id: string, limit: number): Promise<DatasetRow[]>;
  label(id: string, logId: string, label: 0 | 1): Promise<DatasetRecord>;
  /** The JSONL lines, after `get` found the dataset. */
  export(id: string, redactPii: boolean): Promise<AsyncIterable<string | Uint8Array>>;
  close(): Promise<void>;
}

/** The actions over the store of the data folder, as the operator. */
async function localDatasets(
  values: Parameters<typeof storeOptionsOf>[0],
  organizationId: string | undefined,
): Promise<DatasetBackend> {
  const access = await openStoreAccess(storeOptionsOf(values));
  try {
    const datasets = new Datasets(access.management.context);
    const organization = await organizationOf(access, organizationId);
    return {
      workspace: async (named) => (await workspaceOf(access, organization, named)).id,
      create: (input) => datasets.create(OPERATOR, input),
      list: (workspace) => datasets.list(OPERATOR, organization.id, workspace),
      get: (id) => datasets.get(OPERATOR, id),
      rows: (id, limit) => datasets.rows(OPERATOR, id, { limit }),
      label: (id, logId, label) => datasets.label(OPERATOR, id, logId, label),
      export: async (id, redactPii) => datasets.export(OPERATOR, id, redactPii ? { redact: access.engine } : {}),
      close: () => access.close(),
    };
  } catch (error) {
    await access.close();
    throw error;
  }
}

/** The actions over a gateway's admin API; the organization is the admin key's own. */
async function remoteDatasets(client: AdminClient, organization: string | undefined): Promise<DatasetBackend> {
  await client.checkOrganization(organization);
  const one = (id: string) => `/datasets/${encodeURIComponent(id)}`;
  return {
    workspace: (named) => client.workspace(named),
    create: (input) => client.call("POST", "/datasets", input),
    list: async (workspace) =>
      (
        await client.call<{ data: DatasetRecord[] }>(
          "GET",
          `/datasets${workspace === undefined ? "" : `?workspace_id=${encodeURIComponent(workspace)}`}`,
        )
      ).data,
    get: (id) => client.call("GET", one(id)),
    rows: async (id, limit) => (await client.call<{ data: DatasetRow[] }>("GET", `${one(id)}/rows?limit=${limit}`)).data,
    label: (id, logId, label) => client.call("PUT", `${one(id)}/rows/${encodeURIComponent(logId)}/label`, { label }),
    export: (id, redactPii) => client.stream(`${one(id)}/export${redactPii ? "?redact_pii=true" : ""}`),
    close: async () => {},
  };
}

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
    const remote = remoteOf(values);
    const datasets = remote
      ? await remoteDatasets(remote, values.organization)
      : await localDatasets(values, values.organization);
    try {
      const print = (record: DatasetRecord) =>
        process.stdout.write(values.json ? `${JSON.stringify(record, null, 2)}\n` : `${summary(record)}\n`);
      switch (action) {
        case "create": {
          if (!values.name) throw new UsageError("--name is required");
          if (values.verdict !== undefined && values.verdict !== "pass" && values.verdict !== "fail")
            throw new UsageError("--verdict must be pass or fail");
          if (values.status !== undefined && !/^\d{3}(,\d{3})*$/.test(values.status))
            throw new UsageError("--status must be statuses separated by commas, e.g. 246,446");
          const workspace = await datasets.workspace(values.workspace);
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
          const record = await datasets.create({
            name: values.name,
            workspace_id: workspace,
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
          const list = await datasets.list(values.workspace);
          if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
          else for (const d of list) process.stdout.write(`${summary(d)}\n`);
          return 0;
        }
        case "show": {
          const [id] = rest;
          if (!id) throw new UsageError("show needs the dataset's id");
          const record = await datasets.get(id);
          const count = values.rows === undefined ? 10 : Number(values.rows);
          if (!Number.isInteger(count) || count < 0 || count > 500)
            throw new UsageError("--rows must be an integer from 0 to 500");
          const rows = count ? await datasets.rows(id, count) : [];
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
          print(await datasets.label(id, logId, Number(label) as 0 | 1));
          return 0;
        }
        default: {
          const [id] = rest;
          if (!id) throw new UsageError("export needs the dataset's id");
          await datasets.get(id);
          const out = values.out ? createWriteStream(values.out, { mode: 0o600 }) : process.stdout;
          const lines = await datasets.export(id, values["redact-pii"] === true);
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
      await datasets.close();
    }
  });

export default datasetsCommand;
