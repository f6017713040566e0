/**
 * Replay (shadow evaluation): a guardrail or a policy run over logged requests whose bodies were
 * kept, off the request path, through the engine (whose pool runs the checks on worker threads).
 * Each log is judged as if the guardrails were enforced: the input side on the logged request,
 * then, unless that denied, the output side on the logged response; the outcome is what the
 * gateway would have answered (passed 200, flagged 246, denied 446). Several logs are in flight at
 * once so the pool's workers stay busy.
 */
import type { Engine, Evaluation, Guardrail, GuardrailResult, RequestType } from "../../core/index.js";
import { type LogEntry, percentile } from "../store/log-types.js";
import { REPLAY_FORMAT, type ReplayCheckLine, type ReplayReport, type ReplaySubject } from "./replay-report.js";
import { isObject, ThreadShare } from "../../core/internal.js";

const REQUEST_TYPES: ReadonlySet<string> = new Set<RequestType>(["chatComplete", "complete", "embed", "messages", "responses"]);

/** Example log ids kept per outcome and per check. */
const EXAMPLES = 5;

/** Options of a replay. */
export interface ReplayOptions {
  engine: Engine;
  subject: ReplaySubject;
  /** The guardrails of each side, prepared; they run as if synchronous, whatever their mode. */
  guardrails: { input: Guardrail[]; output: Guardrail[] };
  /** The logs to replay, already in range and scope. */
  logs: readonly LogEntry[];
  range: ReplayReport["range"];
  /** Logs evaluated at once; default 16. */
  concurrency?: number;
  /** Told after each log; `done` counts up to `total`. */
  onProgress?: (done: number, total: number) => void;
  /** Credentials for plugin checks, by plugin id (the workspace's plugin integrations). */
  credentials?: (entry: LogEntry) => Promise<Record<string, Record<string, unknown>> | undefined>;
  clock?: () => Date;
  /** The thread's share between logs (checks may run inline, on the main thread); 2 ms slices by default. */
  share?: ThreadShare;
}

/** The slice a replay keeps the thread when none is given. */
const REPLAY_SLICE_MS = 2;

/** Enforced copies: replay asks what the guardrails would have done, so none runs asynchronously. */
function enforced(guardrails: Guardrail[]): Guardrail[] {
  return guardrails.map((g) => {
    if (!g.async && !g.monitor) return g;
    const { monitor: _monitor, ...rest } = g;
    return { ...rest, async: false };
  });
}

/** The time a phase adds: its guardrails run side by side, so the slowest one. */
function phaseTime(evaluation: Evaluation | undefined): number {
  let longest = 0;
  for (const result of evaluation?.results ?? []) longest = Math.max(longest, Number(result.execution_time) || 0);
  return longest;
}

/** Replays the guardrails over the logs and builds the report. */
export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const input = enforced(options.guardrails.input);
  const output = enforced(options.guardrails.output);
  const outcomes: ReplayReport["outcomes"] = { passed: [], flagged: [], denied: [], skipped: [] };
  const checks = new Map<string, ReplayCheckLine>();
  const latencies: number[] = [];
  const byLog = new Map<string, "passed" | "flagged" | "denied" | "skipped">();

  const count = (side: "input" | "output", results: GuardrailResult[], logId: string) => {
    for (const result of results) {
      for (const check of result.checks) {
        const key = `${side}\0${result.id}\0${check.id}`;
        let line = checks.get(key);
        if (!line) {
          line = { guardrail: result.id, side, check: check.id, passed: 0, failed: 0, errored: 0, example_log_ids: [] };
          checks.set(key, line);
        }
        if (check.error !== undefined) line.errored++;
        else if (check.verdict) line.passed++;
        else line.failed++;
        if ((!check.verdict || check.error !== undefined) && line.example_log_ids.length < EXAMPLES) {
          line.example_log_ids.push(logId);
        }
      }
    }
  };

  const one = async (entry: LogEntry): Promise<void> => {
    const record = entry.record;
    const requestType = String(entry.request_type ?? record.request_type ?? "").replace(/^stream-/, "");
    const request = record.request;
    if (!isObject(request) || !REQUEST_TYPES.has(requestType)) {
      byLog.set(entry.id, "skipped");
      return;
    }
    const credentials = await options.credentials?.(entry);
    const common = {
      requestType,
      request,
      metadata: {},
      ...(typeof entry.model === "string" && { model: entry.model }),
      ...(credentials && { credentials }),
    };
    const before = input.length ? await options.engine.evaluate({ side: "input", prepared: input, ...common }) : undefined;
    if (before) count("input", before.results, entry.id);
    const response = record.response;
    const after =
      before?.status !== 446 && output.length && isObject(response)
        ? await options.engine.evaluate({ side: "output", prepared: output, ...common, response })
        : undefined;
    if (after) count("output", after.results, entry.id);
    const statuses = [before?.status ?? 200, after?.status ?? 200];
    byLog.set(entry.id, statuses.includes(446) ? "denied" : statuses.includes(246) ? "flagged" : "passed");
    latencies.push(phaseTime(before) + phaseTime(after));
  };

  const total = options.logs.length;
  let next = 0;
  let done = 0;
  // Checks that run inline finish without a pause: the share lets the process's other work (requests) in.
  const share = options.share ?? new ThreadShare(REPLAY_SLICE_MS);
  const worker = async () => {
    while (next < total) {
      const entry = options.logs[next++] as LogEntry;
      await one(entry);
      options.onProgress?.(++done, total);
      await share.due();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 16, total)) }, worker));

  // Outcomes in the order the logs came, whatever order their evaluations finished in.
  for (const entry of options.logs) outcomes[byLog.get(entry.id) ?? "skipped"].push(entry.id);
  const sorted = [...latencies].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((sum, v) => sum + v, 0) / sorted.length : 0;
  const round = (v: number) => Number(v.toFixed(3));
  return {
    format: REPLAY_FORMAT,
    subject: options.subject,
    range: options.range,
    created_at: (options.clock?.() ?? new Date()).toISOString(),
    totals: {
      logs: total,
      replayed: total - outcomes.skipped.length,
      skipped: outcomes.skipped.length,
      passed: outcomes.passed.length,
      flagged: outcomes.flagged.length,
      denied: outcomes.denied.length,
    },
    checks: [...checks.values()],
    examples: { flagged: outcomes.flagged.slice(0, EXAMPLES), denied: outcomes.denied.slice(0, EXAMPLES) },
    added_latency_ms: {
      mean: round(mean),
      p50: round(percentile(sorted, 50)),
      p95: round(percentile(sorted, 95)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted.at(-1) ?? 0),
    },
    outcomes,
  };
}
