/**
 * `guardgate eval --url`: the evaluation runs on a deployed gateway (`POST /admin/v1/evals`), over
 * its saved guardrails, policies and datasets, with its plugins and credentials; this command
 * sends the subject and the rows, waits for the run, and prints the report and holds the thresholds as a local
 * run does.
 */
import { GuardgateError } from "../core/index.js";
import { type EvalReport, missedThresholds, renderEvalReport } from "../server/quality/eval-report.js";
import { MAX_INLINE_ROWS } from "../server/quality/eval-jobs.js";
import { type EvalRow, EvalRowError, readEvalRows } from "../server/quality/eval-rows.js";
import type { AdminClient } from "./remote.js";
import { UsageError } from "./usage-error.js";

/** How often the run is asked about while it runs. */
const POLL_MS = 250;

/** What `eval` was asked, its files already read. */
export interface RemoteEvalRequest {
  /** `--file`'s guardrail, `--guardrail`'s id or `--policy`'s id: exactly one. */
  definition?: unknown;
  guardrail?: string | undefined;
  policy?: string | undefined;
  /** `--compare`: a guardrail read from a file, or a saved guardrail's id. */
  compare?: { definition: unknown } | { id: string } | undefined;
  data?: string | undefined;
  dataset?: string | undefined;
  workspace?: string | undefined;
  organization?: string | undefined;
  json?: boolean | undefined;
  markdown?: boolean | undefined;
  thresholds: { minF1: number | undefined; maxFpr: number | undefined };
}

/** A run of the admin API. */
interface EvalRun {
  id: string;
  status: "running" | "done" | "failed";
  error: string | null;
  report: EvalReport | null;
}

/** The rows of a `--data` file, each checked; at most what the gateway takes in one request. */
async function inlineRows(file: string): Promise<EvalRow[]> {
  const rows: EvalRow[] = [];
  try {
    for await (const row of readEvalRows(file)) {
      rows.push(row);
      if (rows.length > MAX_INLINE_ROWS)
        throw new UsageError(
          `--data: more than ${MAX_INLINE_ROWS} rows to send to a gateway; make a dataset there (guardgate datasets create --url …) and give --dataset`,
        );
    }
  } catch (error) {
    throw error instanceof EvalRowError ? new UsageError(error.message) : error;
  }
  return rows;
}

/** Runs the evaluation on the gateway; resolves to the exit code (1 when a threshold was missed). */
export async function remoteEval(client: AdminClient, request: RemoteEvalRequest): Promise<number> {
  await client.checkOrganization(request.organization);
  let workspace = request.workspace;
  if (workspace === undefined && request.dataset !== undefined) {
    // A dataset's rows are its workspace's: evaluate there unless told otherwise.
    workspace = (await client.call<{ workspace_id: string }>("GET", `/datasets/${encodeURIComponent(request.dataset)}`))
      .workspace_id;
  }
  const body = {
    workspace_id: await client.workspace(workspace),
    ...(request.definition !== undefined && { guardrail: request.definition }),
    ...(request.guardrail !== undefined && { guardrail_id: request.guardrail }),
    ...(request.policy !== undefined && { policy_id: request.policy }),
    ...(request.compare &&
      ("id" in request.compare
        ? { compare: { guardrail_id: request.compare.id } }
        : { compare: { guardrail: request.compare.definition } })),
    ...(request.dataset !== undefined ? { dataset_id: request.dataset } : { rows: await inlineRows(request.data!) }),
  };
  let run = await client.call<EvalRun>("POST", "/evals", body);
  process.stderr.write(`guardgate eval: running on ${client.url} as ${run.id}\n`);
  while (run.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    run = await client.call<EvalRun>("GET", `/evals/${encodeURIComponent(run.id)}`);
  }
  if (run.status === "failed" || !run.report)
    throw new GuardgateError("eval_failed", `the run ${run.id} failed on the gateway: ${run.error ?? "no report"}`);
  const report = run.report;
  if (request.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(renderEvalReport(report, { markdown: request.markdown === true }));
  const failures = missedThresholds(report.results[0]!, request.thresholds);
  for (const failure of failures) process.stderr.write(`guardgate eval: threshold missed: ${failure}\n`);
  return failures.length ? 1 : 0;
}
