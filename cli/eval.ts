/**
 * `guardgate eval`: measures a guardrail on labelled rows before it is enforced. The guardrail
 * comes from a file, the store (a saved guardrail or a policy); the rows from a JSONL file
 * `{text, label, category?}`. It runs in the worker pool through the gateway's engine path and
 * prints precision, recall, F1, accuracy, false-positive rate, confusion counts, per-check
 * latency, per-category results and the worst misses and false alarms; `--compare` runs a second
 * guardrail beside it and lists the rows where they disagree. `--min-f1` / `--max-fpr` set
 * thresholds the exit status holds a CI job to.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createEngine, type Engine } from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { loadGatewayFile } from "../server/sources/config-file.js";
import { type EvalTarget, evaluate } from "../server/quality/eval.js";
import { missedThresholds, renderEvalReport } from "../server/quality/eval-report.js";
import { OPERATOR } from "../server/management/actor.js";
import { pluginCredentialsOf } from "../server/management/plugin-integrations.js";
import { datasetEvalRows, Datasets } from "../server/quality/datasets.js";
import { countRows, type EvalRow, EvalRowError, readEvalRows } from "../server/quality/eval-rows.js";
import { targetFromDefinition, targetFromGuardrail, targetFromPolicy } from "../server/quality/eval-target.js";
import { type CommandArgs, type Flag, ORGANIZATION_FLAG, parseCommand, printHelp, STORE_PLUGIN_FLAGS } from "./args.js";
import type { Command } from "./command.js";
import { remoteEval } from "./eval-remote.js";
import { progressLine } from "./progress-line.js";
import { REMOTE_FLAGS, remoteOf } from "./remote.js";
import {
  openStoreAccess,
  organizationOf,
  runCommand,
  type StoreAccess,
  storeOptionsOf,
  UsageError,
  workspaceOf,
} from "./store-access.js";

const ARGS = {
  usage: [
    "eval (--file GUARDRAIL.json | --guardrail ID | --policy ID) (--data ROWS.jsonl | --dataset ID) [--compare FILE|ID] [--json | --markdown]\n                          [--min-f1 X] [--max-fpr X] [--concurrency N] [--workspace ID] [--organization ID]\n                          [--plugin SPEC]... [--config FILE] [--data-dir DIR | --url URL --api-key KEY]",
  ],
  flags: {
    file: { type: "string", value: "FILE", help: "a JSON file holding one guardrail {id, checks, ...}" },
    guardrail: { type: "string", value: "ID", help: "a guardrail saved in the store (in --workspace)" },
    policy: { type: "string", value: "ID", help: "a policy in the store: its input and output guardrails" },
    dataset: { type: "string", value: "ID", help: "a dataset made from the store's logs (guardgate datasets create)" },
    data: {
      type: "string",
      value: "FILE",
      help: 'labelled rows, one JSON object a line: {"text", "label" (1 = should fail), "category"?}',
    },
    compare: {
      type: "string",
      value: "FILE|ID",
      help: "a second guardrail (a .json file, else a saved guardrail's id) run on the same\nrows: its results, and the rows on which the two disagree",
    },
    json: { type: "boolean", help: "print the report as JSON (format guardgate.eval/1)" },
    markdown: { type: "boolean", help: "print the report as Markdown" },
    "min-f1": { type: "string", value: "X", help: "exit 1 when F1 is below X (0 to 1)" },
    "max-fpr": { type: "string", value: "X", help: "exit 1 when the false-positive rate is above X (0 to 1)" },
    concurrency: { type: "string", value: "N", help: "rows in flight at once (default 32)" },
    workspace: { type: "string", value: "ID", help: "the saved guardrails' workspace (default: the organization's first)" },
    organization: ORGANIZATION_FLAG,
    "allow-loopback": {
      type: "boolean",
      help: "let checks that call out reach 127.0.0.1 and ::1 (a webhook or a judge on this machine)",
    },
    ...STORE_PLUGIN_FLAGS,
    ...REMOTE_FLAGS,
  },
  positionals: false,
  footer:
    "A row is predicted positive when a guardrail fails on it: input guardrails see its text as the\nuser's message, output guardrails as the answer. Progress goes to stderr (a bar on a terminal).\nExit status: 0 done (and every threshold met), 1 a threshold missed or the store refused, 2 bad input.",
} as const satisfies CommandArgs<Record<string, Flag>>;

/** A number in [0, 1] from a flag. */
function fraction(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number < 0 || number > 1)
    throw new UsageError(`${flag} must be a number from 0 to 1, not "${value}"`);
  return number;
}

async function readDefinition(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

const evalCommand: Command = (argv) =>
  runCommand("eval", async () => {
    const { values, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    const subjects = [values.file, values.guardrail, values.policy].filter((v) => v !== undefined);
    if (subjects.length !== 1) throw new UsageError("give exactly one of --file FILE, --guardrail ID and --policy ID");
    if ((values.data === undefined) === (values.dataset === undefined))
      throw new UsageError("give exactly one of --data ROWS.jsonl and --dataset ID: the labelled rows to evaluate on");
    if (values.data !== undefined && !existsSync(values.data)) throw new UsageError(`--data: ${values.data} does not exist`);
    if (values.json && values.markdown) throw new UsageError("give at most one of --json and --markdown");
    const thresholds = { minF1: fraction(values["min-f1"], "--min-f1"), maxFpr: fraction(values["max-fpr"], "--max-fpr") };
    const concurrency = values.concurrency === undefined ? 32 : Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024)
      throw new UsageError("--concurrency must be an integer from 1 to 1024");
    const compareIsFile = values.compare !== undefined && (values.compare.endsWith(".json") || existsSync(values.compare));
    const remote = remoteOf(values);
    if (remote) {
      // The gateway runs it (eval-remote.ts), with its own engine: local-only flags make no sense.
      if (values.concurrency !== undefined || values["allow-loopback"])
        throw new UsageError("--concurrency and --allow-loopback are for a run on this machine, not with --url");
      return remoteEval(remote, {
        ...(values.file !== undefined && { definition: await readDefinition(values.file) }),
        guardrail: values.guardrail,
        policy: values.policy,
        ...(values.compare !== undefined && {
          compare: compareIsFile ? { definition: await readDefinition(values.compare) } : { id: values.compare },
        }),
        data: values.data,
        dataset: values.dataset,
        workspace: values.workspace,
        organization: values.organization,
        json: values.json,
        markdown: values.markdown,
        thresholds,
      });
    }
    const needsStore =
      values.dataset !== undefined ||
      values.guardrail !== undefined ||
      values.policy !== undefined ||
      (values.compare !== undefined && !compareIsFile);

    let access: StoreAccess | undefined;
    let engine: Engine;
    if (needsStore) {
      access = await openStoreAccess({ ...storeOptionsOf(values), executor: "pool" });
      engine = access.engine;
    } else {
      const plugins = [...(values.plugin ?? [])];
      let baseDir: string | undefined;
      if (values.config) {
        const loaded = await loadGatewayFile(values.config);
        plugins.push(...(loaded.file.plugins ?? []));
        baseDir = loaded.dir;
      }
      engine = await createEngine({
        builtins: builtinPlugins,
        plugins,
        ...(baseDir && { baseDir }),
        executor: "pool",
        ...(values["allow-loopback"] && { settings: { allowLoopback: true } }),
      });
    }
    let progress = progressLine(false, "evaluating", "evaluated");
    let total = 0;
    try {
      let rows: AsyncIterable<EvalRow>;
      let source: string;
      let rowsWorkspace: string | undefined;
      if (values.dataset !== undefined) {
        const dataset = await new Datasets(access!.management.context).get(OPERATOR, values.dataset).catch((error: unknown) => {
          // A dataset that is not there is a bad flag, like a --data file that is not there.
          throw (error as { code?: string }).code === "not_found"
            ? new UsageError(`--dataset: no dataset "${values.dataset}" in the store at ${access!.dataDir}`)
            : error;
        });
        rows = datasetEvalRows(access!.management.context.store, dataset.id);
        source = `dataset ${dataset.id} (${dataset.name})`;
        total = dataset.rows;
        rowsWorkspace = dataset.workspace_id;
      } else {
        rows = readEvalRows(values.data!);
        source = values.data!;
        total = await countRows(values.data!);
      }
      progress = progressLine(process.stderr.isTTY === true, "evaluating", "evaluated");
      const resolve = async (kind: "file" | "guardrail" | "policy", value: string): Promise<EvalTarget> => {
        if (kind === "file") return targetFromDefinition(engine.registry, await readDefinition(value), value);
        const ctx = access!.management.context;
        const organization = await organizationOf(access!, values.organization);
        if (kind === "policy") return targetFromPolicy(ctx, OPERATOR, { organization_id: organization.id }, value);
        const workspace = await workspaceOf(access!, organization, values.workspace);
        return targetFromGuardrail(ctx, workspace.id, value);
      };
      const target =
        values.file !== undefined
          ? await resolve("file", values.file)
          : values.guardrail !== undefined
            ? await resolve("guardrail", values.guardrail)
            : await resolve("policy", values.policy!);
      const compare =
        values.compare === undefined ? undefined : await resolve(compareIsFile ? "file" : "guardrail", values.compare);
      // Partner checks get the workspace's plugin credentials, as on the request path.
      let credentials: Record<string, Record<string, unknown>> | undefined;
      if (access) {
        const organization = await organizationOf(access, values.organization);
        const workspace = await workspaceOf(
          access,
          organization,
          values.workspace ?? rowsWorkspace ?? target.subject.workspace_id,
        );
        credentials = await pluginCredentialsOf(access.management.context, organization.id, workspace.id);
      }
      const report = await evaluate({
        engine,
        target,
        ...(credentials && { credentials }),
        ...(compare && { compare }),
        rows,
        source,
        concurrency,
        onProgress: (done) => progress.update(done, total),
      }).catch((error: unknown) => {
        // A malformed row is bad input, like a bad flag.
        throw error instanceof EvalRowError ? new UsageError(error.message) : error;
      });
      progress.end();
      if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else process.stdout.write(renderEvalReport(report, { markdown: values.markdown === true }));
      // On stderr too, so a CI log shows it when stdout goes to a file.
      for (const result of report.results)
        for (const warning of result.warnings)
          process.stderr.write(`guardgate eval: warning: ${result.subject.id}: ${warning}\n`);
      const failures = missedThresholds(report.results[0]!, thresholds);
      for (const failure of failures) process.stderr.write(`guardgate eval: threshold missed: ${failure}\n`);
      return failures.length ? 1 : 0;
    } finally {
      progress.end();
      if (access) await access.close();
      else await engine.close();
    }
  });

export default evalCommand;
