/**
 * Replays and their saved reports. A replay reads request logs whose bodies were kept, so it is
 * for admins: a saved guardrail's workspace admins, a workspace policy's admins, org admins for an
 * organisation-wide policy. A policy is replayed over the logs of the workspaces it reaches and
 * only those in its scope (keys, models); a guardrail over its workspace's. A report can be saved
 * by name and compared with a saved one.
 */
import type { Engine, Guardrail } from "../../core/index.js";
import { preparePolicyGuardrails } from "../policies/attach.js";
import {
  asReplayReport,
  compareReports,
  type ReplayComparison,
  type ReplayReport,
  type ReplaySubject,
} from "../policies/replay-report.js";
import { replay } from "../policies/replay.js";
import { inScope, requestModel } from "../policies/scope.js";
import type { SchemaType } from "../schema-types.js";
import { invalid, notFound } from "../store/errors.js";
import { newId } from "../store/ids.js";
import type { LogEntry } from "../store/log-types.js";
import type { Policy, ReplayReportRecord } from "../store/types.js";
import { type Actor, requireRole, seesOrganization } from "./actor.js";
import type { ManagementContext } from "./context.js";
import { prepareRecord, recordDefinition } from "./guardrails.js";
import { pluginCredentialsOf } from "./plugin-integrations.js";
import type { replayBodySchema } from "./schemas.js";

/** The most logs one replay reads unless told otherwise. */
export const DEFAULT_REPLAY_LIMIT = 100_000;
/** Logs read per page: one page of full records is read in one step, so it stays short. */
const REPLAY_LOG_PAGE = 50;

/**
 * What to replay, over which logs: `workspace_id` is the guardrail's (required with a guardrail) and
 * narrows a policy's logs to one workspace; `from` is inclusive, `to` exclusive.
 */
export type ReplayInput = SchemaType<typeof replayBodySchema>;

/** What a replay gives back. */
export interface ReplayRun {
  report: ReplayReport;
  /** The saved record, when `save` was given. */
  saved?: Omit<ReplayReportRecord, "report">;
  comparison?: ReplayComparison;
}

/** How a replay tells its progress: logs read while loading, then logs evaluated. */
export interface ReplayProgress {
  loaded?(count: number): void;
  evaluated?(done: number, total: number): void;
}

/** The subject resolved: what it is, its prepared guardrails, and which logs are its. */
interface Resolved {
  subject: ReplaySubject;
  organizationId: string;
  guardrails: { input: Guardrail[]; output: Guardrail[] };
  workspaces: string[];
  policy?: Policy;
}

function isTime(value: string | undefined): boolean {
  return value === undefined || !Number.isNaN(Date.parse(value));
}

export class Replays {
  constructor(private readonly ctx: ManagementContext) {}

  /** Resolves the subject and checks the caller may replay it. */
  async #resolve(actor: Actor, organizationId: string, input: ReplayInput): Promise<Resolved> {
    if ((input.guardrail_id === undefined) === (input.policy_id === undefined)) {
      throw invalid("give exactly one of guardrail_id and policy_id");
    }
    const store = this.ctx.store;
    if (input.guardrail_id !== undefined) {
      const workspaceId = input.workspace_id;
      if (workspaceId === undefined) throw invalid("workspace_id: a saved guardrail is replayed in its workspace; name it");
      const workspace = await store.workspaces.get(workspaceId);
      const reaches =
        workspace?.organization_id === organizationId &&
        (actor.kind === "operator" || actor.role === "org_admin" || actor.workspace_id === workspaceId);
      if (!reaches) throw notFound(`workspace "${workspaceId}"`);
      requireRole(actor, "workspace_admin", "replaying a guardrail over request logs");
      const record = await store.guardrails.get(workspaceId, input.guardrail_id);
      if (!record) throw notFound(`guardrail "${input.guardrail_id}" in workspace "${workspaceId}"`);
      const guardrail = prepareRecord(this.ctx, recordDefinition(record), `guardrail "${record.id}"`);
      return {
        subject: { kind: "guardrail", id: record.id, name: record.name, workspace_id: workspaceId, version: record.version },
        organizationId,
        guardrails: {
          input: guardrail.side === "input" ? [guardrail] : [],
          output: guardrail.side === "output" ? [guardrail] : [],
        },
        workspaces: [workspaceId],
      };
    }
    const policy = await store.policies.get(input.policy_id as string);
    const visible =
      policy !== undefined &&
      seesOrganization(actor, policy.organization_id) &&
      policy.organization_id === organizationId &&
      (actor.kind === "operator" || actor.role === "org_admin" || policy.workspace_id === actor.workspace_id);
    if (!visible) throw notFound(`policy "${input.policy_id}"`);
    requireRole(actor, policy.workspace_id === null ? "org_admin" : "workspace_admin", "replaying a policy over request logs");
    let workspaces: string[];
    if (policy.workspace_id !== null) workspaces = [policy.workspace_id];
    else if (policy.scope.workspaces?.length) workspaces = policy.scope.workspaces;
    else workspaces = (await store.workspaces.list(organizationId)).map((w) => w.id);
    if (input.workspace_id !== undefined) {
      if (!workspaces.includes(input.workspace_id)) {
        throw invalid(`workspace_id: policy "${policy.id}" does not reach workspace "${input.workspace_id}"`);
      }
      workspaces = [input.workspace_id];
    }
    return {
      subject: { kind: "policy", id: policy.id, name: policy.name, workspace_id: policy.workspace_id },
      organizationId,
      guardrails: {
        input: preparePolicyGuardrails(this.ctx.registry, policy, "input"),
        output: preparePolicyGuardrails(this.ctx.registry, policy, "output"),
      },
      workspaces,
      policy,
    };
  }

  /** The logs of the subject's workspaces in range (and a policy's scope), newest first, up to `limit`. */
  async #logs(resolved: Resolved, input: ReplayInput, progress?: ReplayProgress): Promise<LogEntry[]> {
    const limit = input.limit ?? DEFAULT_REPLAY_LIMIT;
    const logs: LogEntry[] = [];
    // Reading a hundred thousand logs is long work: pages stay short and requests get turns between them.
    const share = this.ctx.share();
    for (const workspaceId of resolved.workspaces) {
      let cursor: string | undefined;
      do {
        const page = await this.ctx.store.logs.query({
          workspace_id: workspaceId,
          ...(input.from !== undefined && { from: input.from }),
          ...(input.to !== undefined && { to: input.to }),
          limit: REPLAY_LOG_PAGE,
          ...(cursor !== undefined && { cursor }),
        });
        await share.due();
        for (const entry of page.items) {
          await share.due();
          // Only inference requests carry a request to judge; hook evaluations are not replayed.
          if (!entry.route.startsWith("/v1/") || entry.route.startsWith("/v1/hooks/")) continue;
          if (resolved.policy && !this.#inPolicyScope(resolved.policy, entry)) continue;
          logs.push(entry);
          if (logs.length >= limit) break;
        }
        progress?.loaded?.(logs.length);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined && logs.length < limit);
      if (logs.length >= limit) break;
    }
    return logs;
  }

  #inPolicyScope(policy: Policy, entry: LogEntry): boolean {
    return inScope(policy.scope, {
      workspaceId: entry.workspace_id,
      apiKeyId: entry.api_key_id ?? "",
      ...(entry.model !== null && { model: requestModel(entry.model, entry.provider ?? undefined) as string }),
    });
  }

  /** Replays a guardrail or policy; saves and compares the report when asked. */
  async run(
    actor: Actor,
    organizationId: string,
    input: ReplayInput,
    engine: Engine,
    progress?: ReplayProgress,
  ): Promise<ReplayRun> {
    if (!isTime(input.from) || !isTime(input.to)) throw invalid("from, to: must be ISO 8601 times");
    if (input.limit !== undefined && (!Number.isInteger(input.limit) || input.limit < 1)) {
      throw invalid("limit: must be a positive integer");
    }
    const resolved = await this.#resolve(actor, organizationId, input);
    const before = input.compare !== undefined ? await this.getReport(actor, input.compare) : undefined;
    const logs = await this.#logs(resolved, input, progress);
    const credentials = new Map<string, Promise<Record<string, Record<string, unknown>>>>();
    const report = await replay({
      engine,
      subject: resolved.subject,
      guardrails: resolved.guardrails,
      logs,
      range: { from: input.from ?? null, to: input.to ?? null, workspace_id: input.workspace_id ?? null },
      credentials: (entry) => {
        let held = credentials.get(entry.workspace_id);
        if (!held) {
          held = pluginCredentialsOf(this.ctx, resolved.organizationId, entry.workspace_id);
          credentials.set(entry.workspace_id, held);
        }
        return held;
      },
      ...(progress?.evaluated && { onProgress: progress.evaluated }),
      clock: () => new Date(this.ctx.now()),
      share: this.ctx.share(),
    });
    const run: ReplayRun = { report };
    if (input.save !== undefined) {
      const record = await this.ctx.store.replayReports.create({
        id: newId("rpt"),
        organization_id: resolved.organizationId,
        workspace_id: resolved.subject.workspace_id,
        name: input.save,
        report: report as unknown as Record<string, unknown>,
        created_at: report.created_at,
      });
      if (record) {
        const { report: _report, ...saved } = record;
        run.saved = saved;
      }
    }
    if (before) run.comparison = compareReports(asReplayReport(before.report, `report "${before.id}"`), report);
    return run;
  }

  #visible(actor: Actor, record: ReplayReportRecord): boolean {
    if (!seesOrganization(actor, record.organization_id)) return false;
    if (actor.kind === "operator" || actor.role === "org_admin") return true;
    return record.workspace_id !== null && record.workspace_id === actor.workspace_id && actor.role === "workspace_admin";
  }

  /** A saved report the caller may see: admins of its workspace, org admins. */
  async getReport(actor: Actor, id: string): Promise<ReplayReportRecord> {
    const record = await this.ctx.store.replayReports.get(id);
    if (!record || !this.#visible(actor, record)) throw notFound(`replay report "${id}"`);
    return record;
  }

  /** The saved reports the caller may see, newest first, without their bodies. */
  async listReports(actor: Actor, organizationId: string): Promise<Array<Omit<ReplayReportRecord, "report">>> {
    if (!seesOrganization(actor, organizationId)) throw notFound(`organization "${organizationId}"`);
    return (await this.ctx.store.replayReports.list({ organizationId }))
      .filter((record) => this.#visible(actor, record))
      .map(({ report: _report, ...rest }) => rest);
  }
}
