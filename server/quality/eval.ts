/**
 * Evaluation: a guardrail (or a policy's guardrails) run over labelled rows through the engine,
 * exactly as the gateway runs it (`engine.evaluate` with prepared guardrails, checks in the worker
 * pool), scored against the labels. A row is predicted positive when a guardrail fails on it: the
 * input guardrails see its text as the user's message, the output guardrails as the answer.
 * Rows stream in and only bounded state is kept (counts, latencies, the few worst rows), so the
 * size of the data is not held in memory. Several rows are in flight so the pool's workers stay busy.
 */
import { bodyForText, type Engine, type Guardrail, type GuardrailResult } from "../../core/index.js";
import { ThreadShare } from "../../core/internal.js";
import { percentile } from "../store/log-types.js";
import type { EvalRow } from "./eval-rows.js";
import {
  type CheckLatencyLine,
  type Confusion,
  EVAL_FORMAT,
  type EvalComparison,
  type EvalReport,
  type EvalResult,
  type EvalSubject,
  type RowExample,
  scoresOf,
  warningsOf,
} from "./eval-report.js";

/** A guardrail or policy to evaluate: what it is, and its guardrails prepared per side. */
export interface EvalTarget {
  subject: EvalSubject;
  guardrails: { input: Guardrail[]; output: Guardrail[] };
}

/** What one row did under one target. */
export interface RowOutcome {
  /** A guardrail failed: the row is predicted positive. */
  flagged: boolean;
  /** A check errored (without failing its guardrail unless `fail_on_error`). */
  errored: boolean;
  /** The highest `data.score` a check reported, when one did (model checks do). */
  score?: number;
  results: GuardrailResult[];
}

/** Options of an evaluation. */
export interface EvalOptions {
  engine: Engine;
  target: EvalTarget;
  /** A second target, run on every row beside the first: the report tells where they disagree. */
  compare?: EvalTarget;
  rows: AsyncIterable<EvalRow> | Iterable<EvalRow>;
  /** Credentials for plugin checks, by plugin id (the workspace's plugin integrations), as the gateway passes them. */
  credentials?: Record<string, Record<string, unknown>>;
  /** Where the rows came from, for the report (`rows.jsonl`, `dataset ds_…`). */
  source: string;
  /** Rows in flight at once; default 32. */
  concurrency?: number;
  /** Told after each row; `total` when the caller gave it. */
  onProgress?: (done: number) => void;
  /** Told of each row's outcomes (index from 0), for callers that keep them. */
  onRow?: (index: number, row: EvalRow, outcomes: RowOutcome[]) => void;
  /** Worst misses and false alarms kept per target; default 10. */
  examples?: number;
  clock?: () => Date;
  /** The thread's share between rows (checks may run inline, on the main thread); 2 ms slices by default. */
  share?: ThreadShare;
}

/** The slice an evaluation keeps the thread when none is given. */
const EVAL_SLICE_MS = 2;

/** Characters of a row's text a report keeps. */
const EXCERPT = 200;
/** Disagreeing rows a comparison lists. */
const DISAGREEMENTS_LISTED = 50;

/** Enforced copies: evaluation asks what a guardrail decides, so none runs asynchronously. */
function enforced(guardrails: Guardrail[]): Guardrail[] {
  return guardrails.map((g) => {
    if (!g.async && !g.monitor) return g;
    const { monitor: _monitor, ...rest } = g;
    return { ...rest, async: false };
  });
}

/** Runs a target's guardrails on one text through the engine, as the gateway would. */
export async function evaluateText(
  engine: Engine,
  guardrails: EvalTarget["guardrails"],
  text: string,
  credentials?: Record<string, Record<string, unknown>>,
): Promise<RowOutcome> {
  const results: GuardrailResult[] = [];
  const held = credentials && { credentials };
  if (guardrails.input.length) {
    const input = await engine.evaluate({
      side: "input",
      prepared: guardrails.input,
      requestType: "chatComplete",
      request: bodyForText("input", "chatComplete", text),
      ...held,
    });
    results.push(...input.results);
  }
  if (guardrails.output.length) {
    const output = await engine.evaluate({
      side: "output",
      prepared: guardrails.output,
      requestType: "chatComplete",
      request: { messages: [] },
      response: bodyForText("output", "chatComplete", text),
      ...held,
    });
    results.push(...output.results);
  }
  let score: number | undefined;
  let errored = false;
  for (const result of results) {
    for (const check of result.checks) {
      if (check.error !== undefined) errored = true;
      const value = (check.data as { score?: unknown } | undefined)?.score;
      if (typeof value === "number" && Number.isFinite(value)) score = Math.max(score ?? value, value);
    }
  }
  return { flagged: results.some((r) => !r.verdict), errored, ...(score !== undefined && { score }), results };
}

const round = (value: number) => Number(value.toFixed(3));

function excerpt(text: string): string {
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
}

/** Keeps the `size` worst examples: ranked by score when rows have one, else the first seen. */
class WorstRows {
  readonly rows: Array<RowExample & { rank: number }> = [];
  constructor(
    private readonly size: number,
    /** Higher is worse. */
    private readonly rankOf: (example: RowExample) => number,
  ) {}

  offer(example: RowExample): void {
    const rank = this.rankOf(example);
    if (this.rows.length >= this.size && rank <= (this.rows.at(-1)?.rank ?? -Infinity)) return;
    this.rows.push({ ...example, rank });
    // Stable: equal ranks keep row order.
    this.rows.sort((a, b) => b.rank - a.rank || a.row - b.row);
    if (this.rows.length > this.size) this.rows.pop();
  }

  list(): RowExample[] {
    return this.rows.map(({ rank: _rank, ...example }) => example);
  }
}

/** Counts and latencies of one target, updated row by row. */
class Tally {
  readonly confusion: Confusion = { true_positives: 0, false_positives: 0, true_negatives: 0, false_negatives: 0 };
  readonly categories = new Map<string, Confusion>();
  readonly checks = new Map<string, { line: Omit<CheckLatencyLine, "latency_ms">; times: number[] }>();
  rows = 0;
  erroredRows = 0;
  readonly misses: WorstRows;
  readonly falseAlarms: WorstRows;

  constructor(examples: number) {
    // A miss is worse the lower its score (the guardrail was sure it was fine); a false alarm the higher.
    this.misses = new WorstRows(examples, (e) => -(e.score ?? 0));
    this.falseAlarms = new WorstRows(examples, (e) => e.score ?? 0);
  }

  add(index: number, row: EvalRow, outcome: RowOutcome): void {
    this.rows++;
    if (outcome.errored) this.erroredRows++;
    const key = outcome.flagged
      ? row.label
        ? "true_positives"
        : "false_positives"
      : row.label
        ? "false_negatives"
        : "true_negatives";
    this.confusion[key]++;
    if (row.category !== undefined) {
      let counts = this.categories.get(row.category);
      if (!counts) {
        counts = { true_positives: 0, false_positives: 0, true_negatives: 0, false_negatives: 0 };
        this.categories.set(row.category, counts);
      }
      counts[key]++;
    }
    for (const result of outcome.results) {
      for (const [position, check] of result.checks.entries()) {
        // By position too: a guardrail may hold the same check twice, with other parameters.
        const id = `${result.id}\0${position}\0${check.id}`;
        let entry = this.checks.get(id);
        if (!entry) {
          entry = { line: { guardrail: result.id, check: check.id, runs: 0, failed: 0, errored: 0 }, times: [] };
          this.checks.set(id, entry);
        }
        entry.line.runs++;
        if (check.error !== undefined) entry.line.errored++;
        else if (!check.verdict) entry.line.failed++;
        entry.times.push(Number(check.execution_time) || 0);
      }
    }
    if (key === "false_negatives" || key === "false_positives") {
      const example: RowExample = {
        row: index,
        text: excerpt(row.text),
        label: row.label,
        ...(row.category !== undefined && { category: row.category }),
        ...(row.log_id !== undefined && { log_id: row.log_id }),
        ...(outcome.score !== undefined && { score: outcome.score }),
      };
      (key === "false_negatives" ? this.misses : this.falseAlarms).offer(example);
    }
  }

  result(subject: EvalSubject): EvalResult {
    return {
      subject,
      rows: this.rows,
      errored_rows: this.erroredRows,
      confusion: { ...this.confusion },
      scores: scoresOf(this.confusion),
      checks: [...this.checks.values()].map(({ line, times }) => {
        const sorted = times.sort((a, b) => a - b);
        return { ...line, latency_ms: { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) } };
      }),
      categories: [...this.categories.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([category, confusion]) => ({
          category,
          rows: confusion.true_positives + confusion.false_positives + confusion.true_negatives + confusion.false_negatives,
          confusion,
          scores: scoresOf(confusion),
        })),
      worst_misses: this.misses.list(),
      worst_false_alarms: this.falseAlarms.list(),
      warnings: warningsOf(this.confusion),
    };
  }
}

/** Evaluates the target (and the one compared) over the rows and builds the report. */
export async function evaluate(options: EvalOptions): Promise<EvalReport> {
  const targets = [options.target, ...(options.compare ? [options.compare] : [])].map((t) => ({
    subject: t.subject,
    guardrails: { input: enforced(t.guardrails.input), output: enforced(t.guardrails.output) },
  }));
  const examples = options.examples ?? 10;
  const tallies = targets.map(() => new Tally(examples));
  const comparison: EvalComparison | undefined = options.compare
    ? { disagreements: 0, only_first_flagged: 0, only_second_flagged: 0, rows: [] }
    : undefined;
  const iterator =
    Symbol.asyncIterator in options.rows
      ? (options.rows as AsyncIterable<EvalRow>)[Symbol.asyncIterator]()
      : (options.rows as Iterable<EvalRow>)[Symbol.iterator]();
  let next = 0;
  let done = 0;
  const share = options.share ?? new ThreadShare(EVAL_SLICE_MS);
  const worker = async () => {
    for (;;) {
      await share.due();
      const item = await iterator.next();
      if (item.done) return;
      const index = next++;
      const row = item.value;
      const outcomes = await Promise.all(
        targets.map((t) => evaluateText(options.engine, t.guardrails, row.text, options.credentials)),
      );
      outcomes.forEach((outcome, i) => tallies[i]!.add(index, row, outcome));
      if (comparison && outcomes[0]!.flagged !== outcomes[1]!.flagged) {
        comparison.disagreements++;
        if (outcomes[0]!.flagged) comparison.only_first_flagged++;
        else comparison.only_second_flagged++;
        if (comparison.rows.length < DISAGREEMENTS_LISTED) {
          comparison.rows.push({
            row: index,
            text: excerpt(row.text),
            label: row.label,
            ...(row.category !== undefined && { category: row.category }),
            ...(row.log_id !== undefined && { log_id: row.log_id }),
            flagged: [outcomes[0]!.flagged, outcomes[1]!.flagged],
          });
        }
      }
      options.onRow?.(index, row, outcomes);
      options.onProgress?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 32) }, worker));
  comparison?.rows.sort((a, b) => a.row - b.row);
  return {
    format: EVAL_FORMAT,
    created_at: (options.clock?.() ?? new Date()).toISOString(),
    source: options.source,
    results: targets.map((t, i) => tallies[i]!.result(t.subject)),
    ...(comparison && { comparison }),
  };
}
