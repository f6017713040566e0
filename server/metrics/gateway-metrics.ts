/**
 * The gateway's Prometheus metrics. Request, latency, verdict, check-error and cache figures come
 * from each finished request's log record (the same facts the request log keeps, counted before
 * the record is queued), so the request path gains no code of its own; the worker pool and the
 * log writer are read when Prometheus scrapes.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { AutoExecutor, type Executor, PoolExecutor, type PoolStats } from "../../core/index.js";
import type { RequestLogRecord } from "../logs/record.js";

/** Buckets in seconds: from a fast deterministic check to a slow model answer. */
const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Where the scrape-time figures come from. */
export interface MetricsSources {
  /** The engine's executor: its pool's queue and restarts are reported. */
  executor?: () => Executor;
  /** Records queued for the request log and not yet written. */
  logQueue?: () => number;
}

/** The pool's counters of an executor that has one. */
function poolStats(executor: Executor | undefined): PoolStats | undefined {
  if (executor instanceof PoolExecutor) return executor.stats();
  if (executor instanceof AutoExecutor) return executor.poolStats();
  return undefined;
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
  readonly #checkErrors: Counter<"check">;
  readonly #checkTimeouts: Counter<"check">;
  readonly #cache: Counter<"result">;
  readonly #dropped: Counter;

  constructor(sources: MetricsSources = {}) {
    const registers = [this.registry];
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
    new Gauge({
      name: "guardgate_pool_worker_restarts",
      help: "Worker threads replaced so far: stopped at a check's hard time limit, or crashed",
      registers,
      collect() {
        const stats = pool();
        this.set(stats ? stats.cutOffs + stats.failures : 0);
      },
    });
  }

  /** Counts one finished request. */
  observe(record: RequestLogRecord): void {
    const provider = record.provider ?? "";
    this.#requests.inc({ route: record.route, status: String(record.status), provider });
    this.#latency.observe({ route: record.route }, record.latency_ms / 1000);
    for (const attempt of record.attempts ?? []) {
      // A cache hit never reached the upstream, nor did an input deny: a 446 recorded without an
      // outcome (an output deny carries its error).
      if (attempt.cache_status === "HIT" || (attempt.status === 446 && attempt.error === undefined)) continue;
      this.#upstream.observe({ provider: attempt.provider ?? provider }, attempt.latency_ms / 1000);
    }
    if (record.cache_status) this.#cache.inc({ result: record.cache_status === "HIT" ? "hit" : "miss" });
    const sides = [
      ["input", record.hook_results?.before_request_hooks],
      ["output", record.hook_results?.after_request_hooks],
    ] as const;
    for (const [side, results] of sides) {
      for (const result of results ?? []) {
        this.#guardrailLatency.observe({ guardrail: result.id, side }, (Number(result.execution_time) || 0) / 1000);
        this.#verdicts.inc({ guardrail: result.id, side, verdict: result.verdict ? "pass" : "fail" });
        for (const check of result.checks ?? []) {
          this.#checkLatency.observe({ check: check.id }, (Number(check.execution_time) || 0) / 1000);
          if (check.error === undefined) continue;
          this.#checkErrors.inc({ check: check.id });
          if (typeof check.error === "object" && check.error?.name === "TimeoutError")
            this.#checkTimeouts.inc({ check: check.id });
        }
      }
    }
  }

  /** Counts a record the log could not take. */
  dropped(): void {
    this.#dropped.inc();
  }
}
