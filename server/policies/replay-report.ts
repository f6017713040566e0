/**
 * The replay report (docs/policies.md, "Replay reports"): what a guardrail or policy would have
 * done to logged requests, as plain JSON that is saved in the store and compared between two
 * versions; and its rendering as text tables for the CLI.
 */

/** The report format's name and version; a reader refuses any other. */
export const REPLAY_FORMAT = "guardgate.replay/1";

/** What was replayed. */
export interface ReplaySubject {
  kind: "guardrail" | "policy";
  id: string;
  name: string;
  /** The guardrail's workspace, or the policy's (null: organisation-wide). */
  workspace_id: string | null;
  /** A saved guardrail's version. */
  version?: number;
}

/** Counts of one check over the replay. */
export interface ReplayCheckLine {
  guardrail: string;
  side: "input" | "output";
  check: string;
  passed: number;
  failed: number;
  errored: number;
  /** Up to five log ids where the check failed or errored. */
  example_log_ids: string[];
}

/** Milliseconds the checks would have added per request. */
export interface ReplayLatency {
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** A replay report. */
export interface ReplayReport {
  format: typeof REPLAY_FORMAT;
  subject: ReplaySubject;
  /** The logs read: their time range and workspace filter as asked (null: unbounded / all). */
  range: { from: string | null; to: string | null; workspace_id: string | null };
  created_at: string;
  totals: {
    /** Logs in the range (and, for a policy, in its scope). */
    logs: number;
    /** Logs evaluated: those whose request body was kept. */
    replayed: number;
    /** Logs without a kept body, or of a request type the checks cannot read. */
    skipped: number;
    passed: number;
    /** Would have answered 246: a failing guardrail that does not deny. */
    flagged: number;
    /** Would have answered 446. */
    denied: number;
  };
  checks: ReplayCheckLine[];
  /** Up to five log ids per outcome, to look at first. */
  examples: { flagged: string[]; denied: string[] };
  added_latency_ms: ReplayLatency;
  /** Every log id by outcome: what a comparison of two reports reads. */
  outcomes: { passed: string[]; flagged: string[]; denied: string[]; skipped: string[] };
}

/** What changed from one report to another, over the logs both replayed. */
export interface ReplayComparison {
  before: { subject: ReplaySubject; created_at: string };
  after: { subject: ReplaySubject; created_at: string };
  /** Logs both reports replayed. */
  common: number;
  /** Passed before, denied after. */
  newly_denied: string[];
  /** Passed before, flagged after. */
  newly_flagged: string[];
  /** Denied or flagged before, passed after. */
  newly_passed: string[];
}

/** Throws unless a value read back is a replay report of this format. */
export function asReplayReport(value: unknown, where: string): ReplayReport {
  const report = value as Partial<ReplayReport> | undefined;
  if (!report || typeof report !== "object" || report.format !== REPLAY_FORMAT || !report.outcomes || !report.totals) {
    throw new TypeError(`${where} is not a replay report of format ${REPLAY_FORMAT}`);
  }
  return report as ReplayReport;
}

/** Compares two reports: what `after` would do differently from `before` on the same logs. */
export function compareReports(before: ReplayReport, after: ReplayReport): ReplayComparison {
  const outcomeOf = new Map<string, "passed" | "flagged" | "denied">();
  for (const outcome of ["passed", "flagged", "denied"] as const) {
    for (const id of before.outcomes[outcome]) outcomeOf.set(id, outcome);
  }
  const comparison: ReplayComparison = {
    before: { subject: before.subject, created_at: before.created_at },
    after: { subject: after.subject, created_at: after.created_at },
    common: 0,
    newly_denied: [],
    newly_flagged: [],
    newly_passed: [],
  };
  for (const outcome of ["passed", "flagged", "denied"] as const) {
    for (const id of after.outcomes[outcome]) {
      const was = outcomeOf.get(id);
      if (was === undefined) continue;
      comparison.common++;
      if (was === "passed" && outcome === "denied") comparison.newly_denied.push(id);
      else if (was === "passed" && outcome === "flagged") comparison.newly_flagged.push(id);
      else if (was !== "passed" && outcome === "passed") comparison.newly_passed.push(id);
    }
  }
  return comparison;
}

/** Rows as a left-aligned text table with a header rule. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function describe(subject: ReplaySubject): string {
  const version = subject.version !== undefined ? ` v${subject.version}` : "";
  return `${subject.kind} "${subject.id}"${version}`;
}

/** The summary of a report as text: totals, per check, examples and the latency added. */
export function renderReport(report: ReplayReport): string {
  const { totals, range } = report;
  const span = `${range.from ?? "the first log"} to ${range.to ?? "now"}${range.workspace_id ? `, workspace ${range.workspace_id}` : ""}`;
  const percent = (n: number) => (totals.replayed ? `${((100 * n) / totals.replayed).toFixed(1)}%` : "-");
  const lines = [
    `Replay of ${describe(report.subject)} over ${totals.logs} logged requests (${span})`,
    "",
    textTable(
      ["outcome", "requests", "share", "example log ids"],
      [
        ["passed", String(totals.passed), percent(totals.passed), ""],
        ["flagged (246)", String(totals.flagged), percent(totals.flagged), report.examples.flagged.join(", ")],
        ["denied (446)", String(totals.denied), percent(totals.denied), report.examples.denied.join(", ")],
        ["skipped (no body kept)", String(totals.skipped), "", ""],
      ],
    ),
    "",
    textTable(
      ["guardrail", "side", "check", "passed", "failed", "errored", "example log ids"],
      report.checks.map((c) => [
        c.guardrail,
        c.side,
        c.check,
        String(c.passed),
        String(c.failed),
        String(c.errored),
        c.example_log_ids.join(", "),
      ]),
    ),
    "",
    `Latency the checks would have added per request: mean ${ms(report.added_latency_ms.mean)}, p50 ${ms(
      report.added_latency_ms.p50,
    )}, p95 ${ms(report.added_latency_ms.p95)}, p99 ${ms(report.added_latency_ms.p99)}, max ${ms(report.added_latency_ms.max)}`,
  ];
  return lines.join("\n");
}

function ms(value: number): string {
  return `${value.toFixed(3)} ms`;
}

/** A comparison as text: "v2 would deny N requests v1 passed: here they are". */
export function renderComparison(comparison: ReplayComparison, listed = 20): string {
  const before = describe(comparison.before.subject);
  const after = describe(comparison.after.subject);
  const list = (ids: string[]) =>
    ids.length
      ? `\n  ${ids.slice(0, listed).join("\n  ")}${ids.length > listed ? `\n  … and ${ids.length - listed} more` : ""}`
      : "";
  return [
    `Compared over ${comparison.common} requests both replays read:`,
    `${after} would deny ${comparison.newly_denied.length} requests ${before} passed${comparison.newly_denied.length ? ": here they are" : ""}${list(comparison.newly_denied)}`,
    `${after} would flag ${comparison.newly_flagged.length} requests ${before} passed${list(comparison.newly_flagged)}`,
    `${after} would pass ${comparison.newly_passed.length} requests ${before} flagged or denied${list(comparison.newly_passed)}`,
  ].join("\n");
}
