/**
 * The quality loop's routes (docs/quality-loop.md): datasets made from request logs, their rows,
 * labels and JSONL export; and evaluation runs of a guardrail or policy on labelled rows, as jobs.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Management } from "../../management/index.js";
import { type DatasetInput, Datasets } from "../../quality/datasets.js";
import { type EvalJobInput, EvalJobs, MAX_INLINE_ROWS } from "../../quality/eval-jobs.js";
import { evalRunSchema as runSchema, datasetRowSchema as rowSchema } from "../../store/dataset-schemas.js";
import { ManagementError } from "../../store/errors.js";
import { actorOf } from "../auth.js";
import { body, params, query, route } from "./route.js";

const str = { type: "string" };
const id = { type: "string", minLength: 1 };
const anyObject = { type: "object", additionalProperties: true };
const time = { type: "string", format: "date-time" };
const nullable = (schema: object) => ({ anyOf: [schema, { type: "null" }] });

const filterSchema = {
  type: "object",
  description: "The request logs the dataset is made from; every field optional, combined with AND.",
  properties: {
    from: { ...time, description: "Inclusive lower bound." },
    to: { ...time, description: "Exclusive upper bound." },
    route: { type: "string", description: "e.g. /v1/chat/completions" },
    model: str,
    status: { type: "array", items: { type: "integer" } },
    guardrail_id: str,
    check_id: str,
    verdict: { type: "string", enum: ["pass", "fail"] },
    feedback_min: { type: "integer", minimum: -10, maximum: 10 },
    feedback_max: { type: "integer", minimum: -10, maximum: 10 },
  },
  additionalProperties: false,
};

/** A run in the list: its report left out, what a list shows of it kept (rows, source, F1). */
const runItemSchema = {
  ...runSchema,
  properties: {
    ...runSchema.properties,
    summary: nullable({
      type: "object",
      properties: {
        source: str,
        rows: { type: "integer" },
        f1: nullable({ type: "number" }),
        false_positive_rate: nullable({ type: "number" }),
      },
      required: ["source", "rows", "f1", "false_positive_rate"],
      additionalProperties: false,
    }),
  },
  required: [...runSchema.required, "summary"],
};

/** What the list shows of a run's report: where its rows came from, how many, F1 and the false-positive rate. */
function runSummary(report: Record<string, unknown> | null) {
  const first = (
    report?.results as Array<{ rows?: number; scores?: { f1?: number | null; false_positive_rate?: number | null } }>
  )?.[0];
  if (!report || !first) return null;
  return {
    source: String(report.source ?? ""),
    rows: first.rows ?? 0,
    f1: first.scores?.f1 ?? null,
    false_positive_rate: first.scores?.false_positive_rate ?? null,
  };
}

const datasetSchema = {
  type: "object",
  properties: {
    id: str,
    organization_id: str,
    workspace_id: str,
    name: str,
    filter: anyObject,
    label_rule: nullable(str),
    status: { type: "string", enum: ["building", "ready"] },
    rows: { type: "integer" },
    positives: { type: "integer", description: "Rows with label 1." },
    skipped: {
      type: "object",
      description: "Logs the filter selected that made no row, by reason: no_body = logged without bodies (log_bodies off).",
      properties: { no_body: { type: "integer" } },
      required: ["no_body"],
      additionalProperties: false,
    },
    created_at: str,
    updated_at: str,
  },
  required: ["id", "organization_id", "workspace_id", "name", "filter", "label_rule", "status", "rows", "positives", "skipped"],
  additionalProperties: false,
};

const guardrailSpec = {
  guardrail_id: { ...id, description: "A guardrail saved in the workspace." },
  guardrail: { ...anyObject, description: "A guardrail written inline: {id, checks, ...}." },
};

/** The workspace a call acts in: the one named, else the key's own. */
function workspaceOf(given: string | undefined, actor: ReturnType<typeof actorOf>): string {
  const workspaceId = given ?? (actor.kind === "key" ? actor.workspace_id : null);
  if (!workspaceId)
    throw new ManagementError("workspace_required", "workspace_id: an organization-level key must name the workspace");
  return workspaceId;
}

/** A create call's body, acting in the workspace it names, else the key's own. */
function bodyInWorkspace<T extends { workspace_id: string }>(request: FastifyRequest, actor: ReturnType<typeof actorOf>): T {
  const input = body<Omit<T, "workspace_id"> & { workspace_id?: string }>(request);
  return { ...input, workspace_id: workspaceOf(input.workspace_id, actor) } as T;
}

/** The organization a list call reads: a key's own, else "". */
function organizationOf(actor: ReturnType<typeof actorOf>): string {
  return actor.kind === "key" ? actor.organization_id : "";
}

/** A list answer's schema: `{data: [item, ...]}`. */
const listOf = (item: object) => ({
  type: "object",
  properties: { data: { type: "array", items: item } },
  required: ["data"],
});

export function qualityRoutes(scope: FastifyInstance, management: Management): void {
  const datasets = new Datasets(management.context);
  const jobs = new EvalJobs(management.context, () => scope.guardgate.engine);
  scope.addHook("onClose", () => jobs.drain());
  const tag = "quality";

  route(scope, {
    method: "POST",
    url: "/datasets",
    summary:
      "Make a dataset from the request logs a filter selects, each row labelled by a rule; answers once every row is written",
    tag,
    body: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200 },
        workspace_id: id,
        filter: filterSchema,
        label_rule: {
          type: "string",
          maxLength: 1000,
          description: "Which rows get label 1, e.g. `feedback <= -5 or guardrail:no-injection failed` (docs/quality-loop.md).",
        },
      },
      required: ["name"],
      additionalProperties: false,
    },
    response: [201, datasetSchema],
    handler: async (request) => {
      const actor = actorOf(request);
      return datasets.create(actor, bodyInWorkspace<DatasetInput>(request, actor));
    },
  });
  route(scope, {
    method: "GET",
    url: "/datasets",
    summary: "The datasets the caller sees, newest first",
    tag,
    query: { type: "object", properties: { workspace_id: id }, additionalProperties: false },
    response: [200, listOf(datasetSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      return { data: await datasets.list(actor, organizationOf(actor), query<{ workspace_id?: string }>(request).workspace_id) };
    },
  });
  route(scope, {
    method: "GET",
    url: "/datasets/:dataset_id",
    summary: "One dataset",
    tag,
    params: { dataset_id: str },
    response: [200, datasetSchema],
    handler: (request) => datasets.get(actorOf(request), params(request).dataset_id!),
  });
  route(scope, {
    method: "DELETE",
    url: "/datasets/:dataset_id",
    summary: "Delete a dataset with its rows",
    tag,
    params: { dataset_id: str },
    response: [204, null],
    handler: (request) => datasets.delete(actorOf(request), params(request).dataset_id!),
  });
  route(scope, {
    method: "GET",
    url: "/datasets/:dataset_id/rows",
    summary: "A dataset's rows in order, a page at a time",
    tag,
    params: { dataset_id: str },
    query: {
      type: "object",
      properties: {
        after: { type: "integer", minimum: -1, default: -1, description: "The seq of the last row of the previous page." },
        limit: { type: "integer", minimum: 1, maximum: 500, default: 50 },
      },
      additionalProperties: false,
    },
    response: [
      200,
      {
        type: "object",
        properties: { data: { type: "array", items: rowSchema }, next_after: nullable({ type: "integer" }) },
        required: ["data", "next_after"],
      },
    ],
    handler: async (request) => {
      const q = query<{ after: number; limit: number }>(request);
      const rows = await datasets.rows(actorOf(request), params(request).dataset_id!, q);
      return { data: rows, next_after: rows.length === q.limit ? rows.at(-1)!.seq : null };
    },
  });
  route(scope, {
    method: "PUT",
    url: "/datasets/:dataset_id/rows/:log_id/label",
    summary: "Set the label of the row made from one log",
    tag,
    params: { dataset_id: str, log_id: str },
    body: {
      type: "object",
      properties: { label: { type: "integer", enum: [0, 1] } },
      required: ["label"],
      additionalProperties: false,
    },
    response: [200, datasetSchema],
    handler: (request) =>
      datasets.label(
        actorOf(request),
        params(request).dataset_id!,
        params(request).log_id!,
        body<{ label: 0 | 1 }>(request).label,
      ),
  });
  route(scope, {
    method: "GET",
    url: "/datasets/:dataset_id/export",
    summary: "The rows as JSONL, streamed: {log_id, text, input, output, verdicts, failed_checks, feedback, label}",
    tag,
    params: { dataset_id: str },
    query: {
      type: "object",
      properties: {
        redact_pii: { type: "boolean", default: false, description: "Replace personal data through default.pii (redact: true)." },
      },
      additionalProperties: false,
    },
    response: [200, { type: "string", description: "JSON lines (application/x-ndjson)." }],
    handler: async (request, reply) => {
      const actor = actorOf(request);
      const id = params(request).dataset_id!;
      // Refused before the first byte: a stream cannot turn into a 404 halfway.
      const record = await datasets.get(actor, id);
      const redact = query<{ redact_pii: boolean }>(request).redact_pii ? scope.guardgate.engine : undefined;
      reply.header("content-type", "application/x-ndjson; charset=utf-8");
      reply.header("content-disposition", `attachment; filename="${record.id}.jsonl"`);
      return Readable.from(datasets.export(actor, id, redact ? { redact } : {}));
    },
  });

  route(scope, {
    method: "POST",
    url: "/evals",
    summary:
      "Evaluate a guardrail or policy on labelled rows (a dataset, or rows in the body) as a job; answers at once with the running record",
    tag,
    body: {
      type: "object",
      properties: {
        name: { type: "string", maxLength: 200 },
        workspace_id: id,
        ...guardrailSpec,
        policy_id: id,
        compare: {
          type: "object",
          description: "A second guardrail run on the same rows: the report lists where the two disagree.",
          properties: guardrailSpec,
          additionalProperties: false,
        },
        dataset_id: id,
        rows: {
          type: "array",
          maxItems: MAX_INLINE_ROWS,
          items: anyObject,
          description: "Rows {text, label (1 = should fail), category?}.",
        },
      },
      additionalProperties: false,
    },
    response: [202, runSchema],
    handler: async (request) => {
      const actor = actorOf(request);
      return jobs.start(actor, bodyInWorkspace<EvalJobInput>(request, actor));
    },
  });
  route(scope, {
    method: "GET",
    url: "/evals",
    summary: "Evaluation runs the caller sees, newest first, without their reports: a summary of each (source, rows, F1)",
    tag,
    response: [200, listOf(runItemSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      const runs = await jobs.list(actor, organizationOf(actor));
      return { data: runs.map(({ report, ...run }) => ({ ...run, summary: runSummary(report) })) };
    },
  });
  route(scope, {
    method: "GET",
    url: "/evals/:eval_id",
    summary: "One evaluation run, with its report once done (format guardgate.eval/1)",
    tag,
    params: { eval_id: str },
    response: [200, runSchema],
    handler: (request) => jobs.get(actorOf(request), params(request).eval_id!),
  });
}
