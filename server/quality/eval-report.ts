/**
 * The evaluation report: a versioned JSON document (`format`), and its text and Markdown renderings.
 * Scores follow the usual definitions over the confusion counts, positive = "the guardrail failed":
 * precision TP/(TP+FP), recall TP/(TP+FN), F1 their harmonic mean, accuracy (TP+TN)/all, false-
 * positive rate FP/(FP+TN). A ratio with nothing to divide by is null, never a made-up 0 or 1.
 */

/** The report format; bumped when a field changes meaning or goes. */
export const EVAL_FORMAT = "guardgate.eval/1";

/** What was evaluated. */
export interface EvalSubject {
  kind: "guardrail" | "file" | "policy";
  /** The guardrail's or policy's id (a file's guardrail's own id). */
  id: string;
  /** The file the guardrail was read from. */
  file?: string;
  name?: string;
  workspace_id?: string;
  version?: number;
}

export interface Confusion {
  true_positives: number;
  false_positives: number;
  true_negatives: number;
  false_negatives: number;
}

export interface Scores {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  accuracy: number | null;
  false_positive_rate: number | null;
}

/** One check's runs and latency over the rows. */
export interface CheckLatencyLine {
  guardrail: string;
  check: string;
  runs: number;
  failed: number;
  errored: number;
  latency_ms: { p50: number; p99: number };
}

/** A row shown as an example (a miss, a false alarm, a disagreement). */
export interface RowExample {
  /** The row's position in the data, from 0. */
  row: number;
  /** The text, cut to 200 characters. */
  text: string;
  label: 0 | 1;
  category?: string;
  log_id?: string;
  /** The highest score a check gave the row, when one gave any. */
  score?: number;
}

/** The results of one guardrail or policy. */
export interface EvalResult {
  subject: EvalSubject;
  rows: number;
  /** Rows on which some check errored. */
  errored_rows: number;
  confusion: Confusion;
  scores: Scores;
  checks: CheckLatencyLine[];
  categories: Array<{ category: string; rows: number; confusion: Confusion; scores: Scores }>;
  /** Rows labelled 1 that passed, the most confidently wrong first. */
  worst_misses: RowExample[];
  /** Rows labelled 0 that failed, the most confidently wrong first. */
  worst_false_alarms: RowExample[];
  /** Why the scores may not mean much (too few rows of a label); empty when nothing to say. */
  warnings: string[];
}

/** Where two guardrails decided differently. */
export interface EvalComparison {
  disagreements: number;
  only_first_flagged: number;
  only_second_flagged: number;
  /** The first 50 disagreeing rows; `flagged` is [first, second]. */
  rows: Array<Omit<RowExample, "score"> & { flagged: [boolean, boolean] }>;
}

/** The report of one evaluation. */
export interface EvalReport {
  format: typeof EVAL_FORMAT;
  created_at: string;
  /** Where the rows came from. */
  source: string;
  /** The evaluated guardrail first, then the compared one. */
  results: EvalResult[];
  comparison?: EvalComparison;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : Number((a / b).toFixed(4)));

/** The scores of confusion counts. */
export function scoresOf(c: Confusion): Scores {
  const precision = ratio(c.true_positives, c.true_positives + c.false_positives);
  const recall = ratio(c.true_positives, c.true_positives + c.false_negatives);
  const f1 =
    precision === null || recall === null
      ? null
      : precision + recall === 0
        ? 0
        : ratio(2 * precision * recall, precision + recall);
  const all = c.true_positives + c.false_positives + c.true_negatives + c.false_negatives;
  return {
    precision,
    recall,
    f1,
    accuracy: ratio(c.true_positives + c.true_negatives, all),
    false_positive_rate: ratio(c.false_positives, c.false_positives + c.true_negatives),
  };
}

/**
 * Below this many rows of either label, one row more or less moves recall (over the rows labelled
 * 1) or the false-positive rate (over the rows labelled 0) by more than 1/30, about 3.3 points:
 * the scores then say more about which rows were picked than about the guardrail.
 */
export const MIN_ROWS_PER_LABEL = 30;

/** The warnings a result's confusion counts call for. */
export function warningsOf(c: Confusion): string[] {
  const positives = c.true_positives + c.false_negatives;
  const negatives = c.true_negatives + c.false_positives;
  if (positives >= MIN_ROWS_PER_LABEL && negatives >= MIN_ROWS_PER_LABEL) return [];
  const points = (100 / MIN_ROWS_PER_LABEL).toFixed(1);
  return [
    `only ${positives} rows labelled 1 and ${negatives} labelled 0: below ${MIN_ROWS_PER_LABEL} of each, one row moves recall or the false-positive rate by more than ${points} points, so F1 says little`,
  ];
}

/** Thresholds a CI job sets on the first result (`--min-f1`, `--max-fpr`). */
export interface EvalThresholds {
  minF1?: number;
  maxFpr?: number;
}

/** The thresholds missed: empty when every one is met. A score that cannot be computed misses its threshold. */
export function missedThresholds(result: EvalResult, thresholds: EvalThresholds): string[] {
  const failures: string[] = [];
  const { f1, false_positive_rate: fpr } = result.scores;
  if (thresholds.minF1 !== undefined && (f1 === null || f1 < thresholds.minF1))
    failures.push(`F1 ${f1 ?? "n/a"} is below --min-f1 ${thresholds.minF1}`);
  if (thresholds.maxFpr !== undefined && (fpr === null || fpr > thresholds.maxFpr))
    failures.push(`false-positive rate ${fpr ?? "n/a"} is above --max-fpr ${thresholds.maxFpr}`);
  return failures;
}

const show = (value: number | null) => (value === null ? "n/a" : value.toFixed(4));

/** How a report names what it evaluated: a file's guardrail by its id, the file beside it. */
export function subjectName(subject: EvalSubject): string {
  const kind = subject.kind === "file" ? "guardrail" : subject.kind;
  const version = subject.version !== undefined ? ` v${subject.version}` : "";
  const file = subject.file !== undefined ? ` (from ${subject.file})` : "";
  return `${kind} ${subject.id}${version}${file}`;
}

/** A short name for a table column: the id, with the file or kind only when two ids are the same. */
function columnNames(a: EvalSubject, b: EvalSubject): [string, string] {
  if (a.id !== b.id) return [a.id, b.id];
  return [subjectName(a), subjectName(b)];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ");
}

function table(head: string[], rows: string[][], markdown: boolean): string[] {
  if (markdown) {
    const cell = (s: string) => s.replaceAll("|", "\\|");
    return [
      `| ${head.join(" | ")} |`,
      `|${head.map(() => "---").join("|")}|`,
      ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
    ];
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

function renderResult(result: EvalResult, markdown: boolean): string[] {
  const c = result.confusion;
  const s = result.scores;
  const heading = (text: string, level = 3) => (markdown ? `${"#".repeat(level)} ${text}` : `${text}:`);
  const out = [
    heading(subjectName(result.subject), 2),
    "",
    `rows ${result.rows}, with a check error ${result.errored_rows}`,
    ...(result.warnings ?? []).map((w) => `warning: ${w}`),
    "",
    ...table(
      ["precision", "recall", "F1", "accuracy", "FPR"],
      [[show(s.precision), show(s.recall), show(s.f1), show(s.accuracy), show(s.false_positive_rate)]],
      markdown,
    ),
    "",
    ...table(
      ["", "flagged", "passed"],
      [
        ["label 1", String(c.true_positives), String(c.false_negatives)],
        ["label 0", String(c.false_positives), String(c.true_negatives)],
      ],
      markdown,
    ),
    "",
    heading("checks"),
    ...table(
      ["guardrail", "check", "runs", "failed", "errored", "p50 ms", "p99 ms"],
      result.checks.map((k) => [
        k.guardrail,
        k.check,
        String(k.runs),
        String(k.failed),
        String(k.errored),
        k.latency_ms.p50.toFixed(3),
        k.latency_ms.p99.toFixed(3),
      ]),
      markdown,
    ),
  ];
  if (result.categories.length) {
    out.push(
      "",
      heading("categories"),
      ...table(
        ["category", "rows", "TP", "FP", "TN", "FN", "precision", "recall", "F1"],
        result.categories.map((k) => [
          k.category,
          String(k.rows),
          String(k.confusion.true_positives),
          String(k.confusion.false_positives),
          String(k.confusion.true_negatives),
          String(k.confusion.false_negatives),
          show(k.scores.precision),
          show(k.scores.recall),
          show(k.scores.f1),
        ]),
        markdown,
      ),
    );
  }
  for (const [title, rows] of [
    ["worst misses (label 1, passed)", result.worst_misses],
    ["worst false alarms (label 0, flagged)", result.worst_false_alarms],
  ] as const) {
    if (!rows.length) continue;
    out.push(
      "",
      heading(title),
      ...table(
        ["row", "log id", "category", "score", "text"],
        rows.map((r) => [
          String(r.row),
          r.log_id ?? "-",
          r.category ?? "-",
          r.score === undefined ? "-" : r.score.toFixed(3),
          oneLine(r.text).slice(0, 80),
        ]),
        markdown,
      ),
    );
  }
  return out;
}

/** The report as text for a terminal, or as Markdown. */
export function renderEvalReport(report: EvalReport, options: { markdown?: boolean } = {}): string {
  const markdown = options.markdown === true;
  const out = [
    markdown ? `# Evaluation (${report.format})` : `evaluation (${report.format})`,
    "",
    `source ${report.source}, ${report.created_at}`,
    "",
  ];
  for (const result of report.results) out.push(...renderResult(result, markdown), "");
  const comparison = report.comparison;
  if (comparison && report.results.length === 2) {
    const [a, b] = report.results.map((r) => subjectName(r.subject));
    const [columnA, columnB] = columnNames(report.results[0]!.subject, report.results[1]!.subject);
    out.push(
      markdown ? "## Disagreements" : "disagreements:",
      "",
      `${comparison.disagreements} rows: flagged by ${a} only ${comparison.only_first_flagged}, by ${b} only ${comparison.only_second_flagged}`,
      "",
      ...table(
        ["row", "label", "log id", columnA, columnB, "text"],
        comparison.rows.map((r) => [
          String(r.row),
          String(r.label),
          r.log_id ?? "-",
          r.flagged[0] ? "flagged" : "passed",
          r.flagged[1] ? "flagged" : "passed",
          oneLine(r.text).slice(0, 80),
        ]),
        markdown,
      ),
      "",
    );
  }
  return `${out.join("\n").trimEnd()}\n`;
}
