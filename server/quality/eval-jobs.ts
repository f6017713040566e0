/**
 * Evaluation as a job of the admin API: a request names a guardrail (saved, a policy, or written
 * inline) and its rows (a dataset, or rows in the body), and is answered at once with a run
 * record; the evaluation runs in the background on the gateway's engine and the record is
 * completed with the report, or with the reason it failed. Runs are kept in the store, so the
 * console lists them and sets two side by side.
 */
import type { Engine } from "../../core/index.js";
import { type Actor, assertSeesWorkspace, requireRole } from "../management/actor.js";
import type { ManagementContext } from "../management/context.js";
import { assertGuardrailsAllowed } from "../management/plans.js";
import { pluginCredentialsOf } from "../management/plugin-integrations.js";
import type { EvalRunRecord } from "../store/dataset-types.js";
import { invalid, notFound } from "../store/errors.js";
import { newId } from "../store/ids.js";
import { datasetEvalRows, Datasets } from "./datasets.js";
import { type EvalTarget, evaluate } from "./eval.js";
import { subjectName } from "./eval-report.js";
import { type EvalRow, evalRow } from "./eval-rows.js";
import { targetFromDefinition, targetFromGuardrail, targetFromPolicy } from "./eval-target.js";

/** Rows a request may carry in its body; larger sets go through a dataset. */
export const MAX_INLINE_ROWS = 10_000;

/** What to evaluate and on what. */
export interface EvalJobInput {
  name?: string;
  workspace_id: string;
  guardrail_id?: string;
  policy_id?: string;
  /** A guardrail written inline `{id, checks, ...}`. */
  guardrail?: Record<string, unknown>;
  compare?: { guardrail_id?: string; guardrail?: Record<string, unknown> };
  dataset_id?: string;
  rows?: unknown[];
}

export class EvalJobs {
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly ctx: ManagementContext,
    private readonly engine: () => Engine,
  ) {}

  /** The run when the caller may read it; 404 otherwise. */
  async get(actor: Actor, id: string): Promise<EvalRunRecord> {
    requireRole(actor, "workspace_admin", "reading evaluation runs");
    const record = await this.ctx.store.evalRuns.get(id);
    const visible =
      record !== undefined &&
      (actor.kind === "operator" ||
        (record.organization_id === actor.organization_id &&
          (actor.role === "org_admin" || record.workspace_id === actor.workspace_id)));
    if (!visible) throw notFound(`evaluation run "${id}"`);
    return record;
  }

  /** The runs the caller may read, newest first. */
  async list(actor: Actor, organizationId: string): Promise<EvalRunRecord[]> {
    requireRole(actor, "workspace_admin", "reading evaluation runs");
    const workspaceId = actor.kind === "key" && actor.role !== "org_admin" ? (actor.workspace_id ?? "") : undefined;
    return this.ctx.store.evalRuns.list({ organizationId, ...(workspaceId !== undefined && { workspaceId }) });
  }

  /** Checks the request, records the run and starts it; resolves to the running record. */
  async start(actor: Actor, input: EvalJobInput): Promise<EvalRunRecord> {
    requireRole(actor, "workspace_admin", "evaluating a guardrail");
    const store = this.ctx.store;
    const workspace = await store.workspaces.get(input.workspace_id);
    assertSeesWorkspace(actor, workspace, input.workspace_id);
    const subjects = [input.guardrail_id, input.policy_id, input.guardrail].filter((v) => v !== undefined);
    if (subjects.length !== 1) throw invalid("give exactly one of guardrail_id, policy_id and guardrail");
    if ((input.dataset_id === undefined) === (input.rows === undefined)) throw invalid("give exactly one of dataset_id and rows");
    const engine = this.engine();
    const resolve = async (spec: { guardrail_id?: string; policy_id?: string; guardrail?: unknown }, where: string) => {
      if (spec.guardrail_id !== undefined) return targetFromGuardrail(this.ctx, workspace.id, spec.guardrail_id);
      if (spec.policy_id !== undefined) return targetFromPolicy(this.ctx, actor, workspace, spec.policy_id);
      try {
        return targetFromDefinition(engine.registry, spec.guardrail, where, false);
      } catch (error) {
        throw invalid((error as Error).message);
      }
    };
    const target: EvalTarget = await resolve(input, "guardrail");
    const compare = input.compare ? await resolve(input.compare, "compare.guardrail") : undefined;
    // Gated as on inference: a plan's classes, and nothing while guardrails are turned off.
    const organization = await store.organizations.get(workspace.organization_id);
    if (!organization) throw notFound(`workspace "${workspace.id}"`);
    for (const [run, where] of [
      [target, "guardrail"],
      [compare, "compare"],
    ] as const) {
      if (run) assertGuardrailsAllowed(organization, [...run.guardrails.input, ...run.guardrails.output], engine.registry, where);
    }
    let rows: AsyncIterable<EvalRow> | EvalRow[];
    let source: string;
    if (input.dataset_id !== undefined) {
      const dataset = await new Datasets(this.ctx).get(actor, input.dataset_id);
      if (dataset.workspace_id !== workspace.id) throw notFound(`dataset "${input.dataset_id}" in workspace "${workspace.id}"`);
      rows = datasetEvalRows(store, dataset.id);
      source = `dataset ${dataset.id} (${dataset.name})`;
    } else {
      const given = input.rows!;
      if (!Array.isArray(given) || given.length === 0 || given.length > MAX_INLINE_ROWS)
        throw invalid(`rows: must be an array of 1 to ${MAX_INLINE_ROWS} rows {text, label, category?}`);
      rows = given.map((row, i) => {
        try {
          return evalRow(row, `rows[${i}]`);
        } catch (error) {
          throw invalid((error as Error).message);
        }
      });
      source = `${given.length} rows in the request`;
    }
    const now = this.ctx.now();
    const record: EvalRunRecord = {
      id: newId("ev"),
      organization_id: workspace.organization_id,
      workspace_id: workspace.id,
      name: input.name?.trim() || subjectName(target.subject),
      status: "running",
      error: null,
      report: null,
      created_at: now,
      updated_at: now,
    };
    if (!(await store.evalRuns.create(record))) throw new Error(`evaluation run id ${record.id} was taken`);
    // Partner checks get the workspace's plugin credentials, as on the request path.
    const credentials = await pluginCredentialsOf(this.ctx, workspace.organization_id, workspace.id);
    const job = evaluate({ engine, target, ...(compare && { compare }), rows, source, credentials, share: this.ctx.share() })
      .then(
        (report) =>
          store.evalRuns.update(
            record.id,
            { status: "done", report: report as unknown as Record<string, unknown> },
            this.ctx.now(),
          ),
        (error: unknown) =>
          store.evalRuns.update(record.id, { status: "failed", error: (error as Error).message }, this.ctx.now()),
      )
      .then(
        () => {},
        () => {},
      );
    this.#running.add(job);
    void job.finally(() => this.#running.delete(job));
    return record;
  }

  /** Resolves once every run started so far has finished (before the store closes). */
  async drain(): Promise<void> {
    while (this.#running.size) await Promise.allSettled([...this.#running]);
  }
}
