/**
 * The gateway's Prometheus metrics. Request, latency, verdict, check-error, cache, token, cost,
 * retry, fallback and upstream-error figures come from each finished request's log record (the
 * same facts the request log keeps, counted before the record is queued), so the request path
 * gains no code of its own; the worker pool and the log writer are read when Prometheus scrapes.
 * prom-client's default process and Node.js metrics are in the same registry. Guardrail and check
 * labels only take saved ids (labels.ts).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { AutoExecutor, type Executor, PoolExecutor, type PoolStats } from "../../core/index.js";
import { type AttemptRecord, failedUpstream, type RequestLogRecord } from "../logs/record.js";
import { checkLabel, guardrailLabel, toolLabel } from "./labels.js";

/** Buckets in seconds: from a fast deterministic check to a slow model answer. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Where the scrape-time figures come from. */
export interface MetricsSources {
  /** The engine's executor: its pool's queue and restarts are reported. */
  executor?: () => Executor;
  /** Records queued for the request log and not yet written. */
  logQueue?: () => number;
  /** Whether the registry holds a check id; check labels take only such ids. */
  isCheck?: (id: string) => boolean;
  /** Whether an MCP server listed a tool; tool labels take only such names. */
  isTool?: (server: string, tool: string) => boolean;
}

/** The MCP part of a tool call's record (server/tool-guard/tool-call-record.ts). */
interface McpFields {
  server: string;
  method: string;
  tool?: string;
  refused?: string;
}

/** The pool's counters of an executor that has one. */
function poolStats(executor: Executor | undefined): PoolStats | undefined {
  if (executor instanceof PoolExecutor) return executor.stats();
  if (executor instanceof AutoExecutor) return executor.poolStats();
  return undefined;
}

/** A count a counter can add: a counter throws on anything negative or not finite. */
function countable(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The metrics of one gateway instance, in their own registry. */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<"route" | "status" | "provider">;
  readonly #latency: Histogram<"route">;
  readonly #upstream: Histogram<"provider">;
  readonly #guardrailLatency: Histogram<"guardrail" | "side">;
  readonly #checkLatency: Histogram<"check">;
  readonly #verdicts: Counter<"guardrail" | "side" | "verdict">;
  readonly #monitorVerdicts: Counter<"policy" | "guardrail" | "side" | "verdict">;
  readonly #checkErrors: Counter<"check">;
  readonly #checkTimeouts: Counter<"check">;
  readonly #cache: Counter<"result">;
  readonly #dropped: Counter;
  readonly #tokens: Counter<"provider" | "kind">;
  readonly #cost: Counter<"provider">;
  readonly #retries: Counter<"provider">;
  readonly #fallbacks: Counter<"route">;
  readonly #upstreamErrors: Counter<"provider" | "status">;
  readonly #isCheck: ((id: string) => boolean) | undefined;
  readonly #isTool: ((server: string, tool: string) => boolean) | undefined;
  readonly #mcpCalls: Counter<"server" | "tool" | "method" | "status">;
  readonly #mcpDenials: Counter<"server" | "tool" | "side">;
  readonly #mcpLatency: Histogram<"server" | "tool">;

  constructor(sources: MetricsSources = {}) {
    const registers = [this.registry];
    this.#isCheck = sources.isCheck;
    this.#isTool = sources.isTool;
    collectDefaultMetrics({ register: this.registry });
    this.#requests = new Counter({
      name: "guardgate_requests_total",
      help: "Requests answered, by route, HTTP status and provider",
      labelNames: ["route", "status", "provider"],
      registers,
    });
    this.#latency = new Histogram({
      name: "guardgate_request_duration_seconds",
      help: "Time from receiving a request to its last byte, by route",
      labelNames: ["route"],
      buckets: SECONDS,
      registers,
    });
    this.#upstream = new Histogram({
      name: "guardgate_upstream_duration_seconds",
      help: "Time of each attempt that reached the upstream (with its output guardrails), by provider",
      labelNames: ["provider"],
      buckets: SECONDS,
      registers,
    });
    this.#guardrailLatency = new Histogram({
      name: "guardgate_guardrail_duration_seconds",
      help: "Time of each guardrail run, by guardrail id and side",
      labelNames: ["guardrail", "side"],
      buckets: SECONDS,
      registers,
    });
    this.#checkLatency = new Histogram({
      name: "guardgate_check_duration_seconds",
      help: "Time of each check run, by check id",
      labelNames: ["check"],
      buckets: SECONDS,
      registers,
    });
    this.#verdicts = new Counter({
      name: "guardgate_guardrail_verdicts_total",
      help: "Guardrail verdicts, by guardrail id, side and verdict (pass or fail)",
      labelNames: ["guardrail", "side", "verdict"],
      registers,
    });
    this.#monitorVerdicts = new Counter({
      name: "guardgate_monitor_verdicts_total",
      help: "Verdicts of guardrails run in monitor mode (logged, never acted on), by policy, guardrail id, side and verdict",
      labelNames: ["policy", "guardrail", "side", "verdict"],
      registers,
    });
    this.#checkErrors = new Counter({
      name: "guardgate_check_errors_total",
      help: "Check runs that ended in an error (time-outs included), by check id",
      labelNames: ["check"],
      registers,
    });
    this.#checkTimeouts = new Counter({
      name: "guardgate_check_timeouts_total",
      help: "Check runs stopped at their time limit, by check id",
      labelNames: ["check"],
      registers,
    });
    this.#cache = new Counter({
      name: "guardgate_cache_lookups_total",
      help: "Response cache lookups, by result (hit or miss)",
      labelNames: ["result"],
      registers,
    });
    this.#dropped = new Counter({
      name: "guardgate_log_records_dropped_total",
      help: "Request log records that could not be queued for writing (should stay 0)",
      registers,
    });
    this.#tokens = new Counter({
      name: "guardgate_tokens_total",
      help: "Tokens of answered requests, by provider and kind (input or output); estimated where the upstream reported none",
      labelNames: ["provider", "kind"],
      registers,
    });
    this.#cost = new Counter({
      name: "guardgate_estimated_cost_usd_total",
      help: "Estimated cost in US dollars of answered requests at the models' prices, by provider",
      labelNames: ["provider"],
      registers,
    });
    this.#retries = new Counter({
      name: "guardgate_retries_total",
      help: "Attempts that repeated a target (retry.on_status_codes), by provider",
      labelNames: ["provider"],
      registers,
    });
    this.#fallbacks = new Counter({
      name: "guardgate_fallbacks_total",
      help: "Moves from one target to the next (strategy fallback), by route",
      labelNames: ["route"],
      registers,
    });
    this.#upstreamErrors = new Counter({
      name: "guardgate_upstream_errors_total",
      help: "Attempts that failed at the upstream, by provider and HTTP status (the upstream's, or the gateway's 502/504 when it could not reach or read it)",
      labelNames: ["provider", "status"],
      registers,
    });
    this.#mcpCalls = new Counter({
      name: "guardgate_mcp_calls_total",
      help: "MCP calls (tools/call, resources/read, prompts/get), by server, tool (a listed one, else unlisted), method and status",
      labelNames: ["server", "tool", "method", "status"],
      registers,
    });
    this.#mcpDenials = new Counter({
      name: "guardgate_mcp_denials_total",
      help: "MCP calls the gateway refused or whose result it withheld, by server, tool and side (input, output, tool_controls or tool_pin)",
      labelNames: ["server", "tool", "side"],
      registers,
    });
    this.#mcpLatency = new Histogram({
      name: "guardgate_mcp_call_duration_seconds",
      help: "Time of each MCP call through the gateway, guardrails included, by server and tool",
      labelNames: ["server", "tool"],
      buckets: SECONDS,
      registers,
    });
    new Gauge({
      name: "guardgate_log_writer_queue_depth",
      help: "Request log records waiting to be written",
      registers,
      collect() {
        this.set(sources.logQueue?.() ?? 0);
      },
    });
    const pool = () => poolStats(sources.executor?.());
    new Gauge({
      name: "guardgate_pool_queue_depth",
      help: "Guardrail phases waiting for a free worker thread",
      registers,
      collect() {
        this.set(pool()?.queued ?? 0);
      },
    });
    new Gauge({
      name: "guardgate_pool_threads",
      help: "Worker threads of the check pool",
      registers,
      collect() {
        this.set(pool()?.threads ?? 0);
      },
    });
    // The pool counts its restarts from its start; a new pool (an executor replaced) starts again at 0.
    const seen = { cutOffs: 0, failures: 0 };
    new Counter({
      name: "guardgate_pool_worker_restarts_total",
      help: "Worker threads replaced, by reason: time_limit (stopped at a check's hard time limit) or crash",
      labelNames: ["reason"],
      registers,
      collect() {
        const stats = pool();
        for (const [key, reason] of [
          ["cutOffs", "time_limit"],
          ["failures", "crash"],
        ] as const) {
          const now = stats?.[key] ?? 0;
          const added = now >= seen[key] ? now - seen[key] : now;
          seen[key] = now;
          // Zero-valued series are made too, so a dashboard sees both reasons from the first scrape.
          this.inc({ reason }, added);
        }
      },
    });
  }

  /** Counts one finished request. */
  observe(record: RequestLogRecord): void {
    const mcp = (record as { mcp?: McpFields }).mcp;
    if (mcp) this.#observeMcp(record, mcp);
    const provider = record.provider ?? "";
    this.#requests.inc({ route: record.route, status: String(record.status), provider });
    this.#latency.observe({ route: record.route }, record.latency_ms / 1000);
    let previous: AttemptRecord | undefined;
    for (const attempt of record.attempts ?? []) {
      const attemptProvider = attempt.provider ?? provider;
      if (previous) {
        if (previous.target === attempt.target) this.#retries.inc({ provider: attemptProvider });
        else this.#fallbacks.inc({ route: record.route });
      }
      previous = attempt;
      if (failedUpstream(attempt)) this.#upstreamErrors.inc({ provider: attemptProvider, status: String(attempt.status) });
      // A cache hit never reached the upstream, nor did an attempt ended before it (an input deny).
      if (attempt.cache_status === "HIT" || attempt.before_upstream) continue;
      this.#upstream.observe({ provider: attemptProvider }, attempt.latency_ms / 1000);
    }
    if (record.usage) {
      this.#tokens.inc({ provider, kind: "input" }, countable(record.usage.input_tokens));
      this.#tokens.inc({ provider, kind: "output" }, countable(record.usage.output_tokens));
    }
    if (record.cost) this.#cost.inc({ provider }, countable(record.cost));
    if (record.cache_status) this.#cache.inc({ result: record.cache_status === "HIT" ? "hit" : "miss" });
    const sides = [
      ["input", record.hook_results?.before_request_hooks],
      ["output", record.hook_results?.after_request_hooks],
    ] as const;
    for (const [side, results] of sides) {
      for (const result of results ?? []) {
        const guardrail = guardrailLabel(result, record);
        const verdict = result.verdict ? "pass" : "fail";
        this.#guardrailLatency.observe({ guardrail, side }, (Number(result.execution_time) || 0) / 1000);
        this.#verdicts.inc({ guardrail, side, verdict });
        const tagged = result as { monitor?: boolean; policy?: { id?: string } };
        if (tagged.monitor === true) {
          this.#monitorVerdicts.inc({ policy: tagged.policy?.id ?? "", guardrail, side, verdict });
        }
        for (const check of result.checks ?? []) {
          const id = checkLabel(check.id, this.#isCheck);
          this.#checkLatency.observe({ check: id }, (Number(check.execution_time) || 0) / 1000);
          if (check.error === undefined) continue;
          this.#checkErrors.inc({ check: id });
          if (typeof check.error === "object" && check.error?.name === "TimeoutError") this.#checkTimeouts.inc({ check: id });
        }
      }
    }
  }

  /** Counts one MCP call by server and tool; a tool its server never listed is `unlisted`. */
  #observeMcp(record: RequestLogRecord, mcp: McpFields): void {
    const server = mcp.server;
    const tool = mcp.method === "tools/call" ? toolLabel(server, mcp.tool, this.#isTool) : "";
    this.#mcpCalls.inc({ server, tool, method: mcp.method, status: String(record.status) });
    this.#mcpLatency.observe({ server, tool }, record.latency_ms / 1000);
    if (mcp.refused) this.#mcpDenials.inc({ server, tool, side: mcp.refused });
  }

  /** Counts a record the log could not take. */
  dropped(): void {
    this.#dropped.inc();
  }
}
