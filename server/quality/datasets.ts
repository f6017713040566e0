/**
 * Datasets made from request logs. Creation walks the logs a filter selects, a page at a time,
 * and writes one row per log that kept its body: the request's text, the answer's text, each
 * guardrail's verdict, the checks that failed, the feedback values, and a label from the rule
 * given at creation. Logs without a body are counted as skipped, with the reason. Export streams
 * the rows as JSONL, optionally with personal data redacted by `default.pii`. Nothing holds more
 * than a page of rows, so a dataset of any size is made and exported in bounded memory; both walk
 * in slices of the thread (ManagementContext.share), so requests are answered meanwhile.
 *
 * Access is the log's: a workspace's admins for its datasets, an organization's admins for all.
 */
import { baseRequestType, type Engine, locateText, type RequestType } from "../../core/index.js";
import { guardrailViews } from "../logs/view.js";
import { type Actor, assertSeesWorkspace, requireRole } from "../management/actor.js";
import type { ManagementContext } from "../management/context.js";
import type { DatasetFilter, DatasetRecord, DatasetRow } from "../store/dataset-types.js";
import { invalid, notFound } from "../store/errors.js";
import { newId } from "../store/ids.js";
import type { LogEntry, LogFilter } from "../store/log-types.js";
import type { EvalRow } from "./eval-rows.js";
import { type LabelFacts, parseLabelRule } from "./label-rule.js";
import { isObject } from "../../core/internal.js";
import {
  callArgumentSlots,
  callResultSlots,
  promptSlots,
  resourceSlots,
  stringSlots,
  type TextSlot,
} from "../formats/mcp-text.js";

/** The largest page of rows the rows route gives. */
const PAGE = 500;
/**
 * Logs read (and rows written) per page when a dataset is made, and rows read per page when it is
 * exported or evaluated: a page is read in one step, so it stays short beside requests.
 */
const READ_PAGE = 50;

/** What a dataset is made from. */
export interface DatasetInput {
  name: string;
  workspace_id: string;
  filter?: DatasetFilter;
  label_rule?: string | null;
}

/** One exported row: `text` is the input, so the file is an eval row file as it is. */
export type ExportedRow = Omit<DatasetRow, "dataset_id" | "seq"> & { text: string };

/** The row a log makes, or undefined when it kept no request body. */
export function rowOf(
  entry: LogEntry,
  feedback: number[],
  label: ((facts: LabelFacts) => boolean) | undefined,
): Omit<DatasetRow, "dataset_id" | "seq"> | undefined {
  const record = entry.record;
  const requestType = String(entry.request_type ?? record.request_type ?? "");
  if (!isObject(record.request)) return undefined;
  const { input, output } = requestType.startsWith(MCP_PREFIX)
    ? mcpTexts(requestType.slice(MCP_PREFIX.length), record.request, record.response)
    : modelTexts(baseRequestType(requestType) ?? "chatComplete", record.request, record.response);
  const verdicts: Record<string, "pass" | "fail"> = {};
  const failed: string[] = [];
  const failedChecks = new Set<string>();
  const ranChecks = new Set<string>();
  for (const view of guardrailViews(record)) {
    // A guardrail run on both sides fails when either side did.
    verdicts[view.id] = verdicts[view.id] === "fail" || !view.verdict ? "fail" : "pass";
    for (const check of view.checks) {
      ranChecks.add(check.id);
      if (check.outcome === "failed") {
        failedChecks.add(check.id);
        failed.push(`${view.id}/${check.id}`);
      }
    }
  }
  const facts: LabelFacts = { status: entry.status, feedback, guardrails: verdicts, failedChecks, ranChecks };
  return {
    log_id: entry.id,
    input,
    output,
    verdicts,
    failed_checks: failed,
    feedback,
    label: label?.(facts) ? 1 : 0,
  };
}

/** The request type of a logged MCP call: `mcp:` and its method (server/tool-guard/tool-call-record.ts). */
const MCP_PREFIX = "mcp:";

/** The texts a model request's checks read, on each side. */
function modelTexts(type: RequestType, request: Record<string, unknown>, response: unknown): RowTexts {
  const input = locateText("input", type, request).text;
  const output = isObject(response) && type !== "embed" ? locateText("output", type, response).text : null;
  return { input, output };
}

/** The texts the tool sides read of a logged MCP call (docs/mcp.md): its arguments, and its result. */
function mcpTexts(method: string, request: Record<string, unknown>, response: unknown): RowTexts {
  const joined = (slots: TextSlot[]) => slots.map((slot) => slot.text).join("\n");
  const input = joined(method === "tools/call" ? callArgumentSlots(request) : stringSlots(request));
  if (!isObject(response)) return { input, output: null };
  const output =
    method === "tools/call"
      ? callResultSlots(response)
      : method === "resources/read"
        ? resourceSlots(response)
        : promptSlots(response);
  return { input, output: joined(output) };
}

interface RowTexts {
  input: string;
  output: string | null;
}

/** A dataset's rows as eval rows (`text` is the input), read a page at a time. */
export async function* datasetEvalRows(store: ManagementContext["store"], id: string): AsyncGenerator<EvalRow> {
  let after = -1;
  for (;;) {
    const page = await store.datasets.rows(id, { after, limit: READ_PAGE });
    if (page.length === 0) return;
    for (const row of page) yield { text: row.input, label: row.label, log_id: row.log_id };
    after = page.at(-1)!.seq;
  }
}

export class Datasets {
  constructor(private readonly ctx: ManagementContext) {}

  /** The dataset when the caller may read it; 404 otherwise. */
  async get(actor: Actor, id: string): Promise<DatasetRecord> {
    requireRole(actor, "workspace_admin", "reading datasets");
    const record = await this.ctx.store.datasets.get(id);
    const visible =
      record !== undefined &&
      (actor.kind === "operator" ||
        (record.organization_id === actor.organization_id &&
          (actor.role === "org_admin" || record.workspace_id === actor.workspace_id)));
    if (!visible) throw notFound(`dataset "${id}"`);
    return record;
  }

  /** The datasets the caller may read, newest first. */
  async list(actor: Actor, organizationId: string, workspaceId?: string): Promise<DatasetRecord[]> {
    requireRole(actor, "workspace_admin", "reading datasets");
    if (actor.kind === "key" && actor.role !== "org_admin") workspaceId = actor.workspace_id ?? "";
    return this.ctx.store.datasets.list({ organizationId, ...(workspaceId !== undefined && { workspaceId }) });
  }

  /** Makes a dataset from the logs `input.filter` selects in the workspace; resolves once every row is written. */
  async create(actor: Actor, input: DatasetInput): Promise<DatasetRecord> {
    requireRole(actor, "workspace_admin", "making a dataset from request logs");
    const store = this.ctx.store;
    const workspace = await store.workspaces.get(input.workspace_id);
    assertSeesWorkspace(actor, workspace, input.workspace_id);
    if (typeof input.name !== "string" || input.name.trim() === "" || input.name.length > 200)
      throw invalid("name: must be a non-empty string of at most 200 characters");
    const rule = input.label_rule ? parseLabelRule(input.label_rule) : undefined;
    const filter: DatasetFilter = { ...(input.filter ?? {}) };
    for (const bound of ["from", "to"] as const) {
      const value = filter[bound];
      if (value !== undefined) {
        if (Number.isNaN(Date.parse(value))) throw invalid(`filter.${bound}: is not an ISO 8601 time`);
        filter[bound] = new Date(value).toISOString();
      }
    }
    const now = this.ctx.now();
    const record: DatasetRecord = {
      id: newId("ds"),
      organization_id: workspace.organization_id,
      workspace_id: workspace.id,
      name: input.name.trim(),
      filter,
      label_rule: input.label_rule ?? null,
      status: "building",
      rows: 0,
      positives: 0,
      skipped: { no_body: 0 },
      created_at: now,
      updated_at: now,
    };
    if (!(await store.datasets.create(record))) throw new Error(`dataset id ${record.id} was taken`);
    try {
      const { route, ...logFilter } = filter;
      const query: LogFilter = {
        ...logFilter,
        organization_id: workspace.organization_id,
        workspace_id: workspace.id,
        limit: READ_PAGE,
      };
      const share = this.ctx.share();
      let cursor: string | undefined;
      do {
        const page = await store.logs.query({ ...query, ...(cursor && { cursor }) });
        await share.due();
        const entries = route === undefined ? page.items : page.items.filter((e) => e.route === route);
        const feedback = new Map<string, number[]>();
        for (const f of await store.feedback.forLogs(entries.map((e) => e.id))) {
          feedback.set(f.log_id, [...(feedback.get(f.log_id) ?? []), f.value]);
        }
        const rows: DatasetRow[] = [];
        for (const entry of entries) {
          await share.due();
          const row = rowOf(entry, feedback.get(entry.id) ?? [], rule);
          if (!row) {
            record.skipped.no_body++;
            continue;
          }
          rows.push({ dataset_id: record.id, seq: record.rows + rows.length, ...row });
          if (row.label) record.positives++;
        }
        await store.datasets.appendRows(rows);
        await share.due();
        record.rows += rows.length;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    } catch (error) {
      // Half a dataset is no dataset: nothing stays behind.
      await store.datasets.delete(record.id).catch(() => {});
      throw error;
    }
    const ready = await store.datasets.update(
      record.id,
      { status: "ready", rows: record.rows, positives: record.positives, skipped: record.skipped },
      this.ctx.now(),
    );
    return ready ?? record;
  }

  /** Rows in order, a page at a time. */
  async rows(actor: Actor, id: string, page: { after?: number; limit?: number }): Promise<DatasetRow[]> {
    await this.get(actor, id);
    return this.ctx.store.datasets.rows(id, { after: page.after ?? -1, limit: Math.min(Math.max(1, page.limit ?? 50), PAGE) });
  }

  /** Sets the label of the row made from `logId`. */
  async label(actor: Actor, id: string, logId: string, label: 0 | 1): Promise<DatasetRecord> {
    const record = await this.get(actor, id);
    if (label !== 0 && label !== 1) throw invalid("label: must be 0 or 1");
    const before = await this.ctx.store.datasets.label(id, logId, label);
    if (before === undefined) throw notFound(`row of log "${logId}" in dataset "${id}"`);
    if (before === label) return record;
    const updated = await this.ctx.store.datasets.update(id, { positives: record.positives + label - before }, this.ctx.now());
    return updated ?? record;
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await this.get(actor, id);
    await this.ctx.store.datasets.delete(id);
  }

  /**
   * The rows as JSONL lines, a page read at a time. With `redact`, personal data in the input and
   * output is replaced through `default.pii` (redact: true) on `engine`, as a guardrail would.
   */
  async *export(actor: Actor, id: string, options: { redact?: Engine } = {}): AsyncGenerator<string> {
    await this.get(actor, id);
    const redact = options.redact;
    const pii = redact && [{ id: "export-pii", async: false, checks: [{ id: "default.pii", parameters: { redact: true } }] }];
    const clean = async (text: string, side: "input" | "output"): Promise<string> => {
      if (!redact || !pii || text === "") return text;
      const body =
        side === "input"
          ? { messages: [{ role: "user", content: text }] }
          : { choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
      const evaluation = await redact.evaluate({
        side,
        requestType: "chatComplete",
        guardrails: pii,
        request: side === "input" ? body : { messages: [] },
        ...(side === "output" && { response: body }),
      });
      const changed = side === "input" ? evaluation.request : evaluation.response;
      return locateText(side, "chatComplete", changed).text;
    };
    const share = this.ctx.share();
    let after = -1;
    for (;;) {
      const page = await this.ctx.store.datasets.rows(id, { after, limit: READ_PAGE });
      if (page.length === 0) return;
      for (const row of page) {
        await share.due();
        const input = await clean(row.input, "input");
        const exported: ExportedRow = {
          log_id: row.log_id,
          text: input,
          input,
          output: row.output === null ? null : await clean(row.output, "output"),
          verdicts: row.verdicts,
          failed_checks: row.failed_checks,
          feedback: row.feedback,
          label: row.label,
        };
        yield `${JSON.stringify(exported)}\n`;
      }
      after = page.at(-1)!.seq;
    }
  }
}
