/**
 * One evaluation run's report (docs/quality-loop.md): where its rows came from, the scores and
 * confusion counts of each guardrail, the warnings on too few rows, per-check latency, per-category
 * results and the worst misses and false alarms.
 */
import { useEffect } from "preact/hooks";
import { admin } from "../api";
import { href } from "../router";
import { Await, PageHead, useLoad, when } from "../ui";

export interface Scores {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  accuracy: number | null;
  false_positive_rate: number | null;
}

interface RowExample {
  row: number;
  text: string;
  label: 0 | 1;
  category?: string;
  log_id?: string;
  score?: number;
}

/** One guardrail's results in a report (server/quality/eval-report.ts, EvalResult). */
export interface EvalResult {
  subject: { kind: string; id: string; name?: string; file?: string };
  rows: number;
  errored_rows: number;
  confusion: { true_positives: number; false_positives: number; true_negatives: number; false_negatives: number };
  scores: Scores;
  checks: Array<{ guardrail: string; check: string; runs: number; latency_ms: { p50: number; p99: number } }>;
  categories?: Array<{ category: string; rows: number; scores: Scores }>;
  worst_misses?: RowExample[];
  worst_false_alarms?: RowExample[];
  /** Absent from reports made before warnings were written. */
  warnings?: string[];
}

/** A run as the admin API answers it. */
export interface EvalRun {
  id: string;
  name: string;
  status: "running" | "done" | "failed";
  error: string | null;
  created_at: string;
  updated_at: string;
  report?: { format: string; source: string; results: EvalResult[] } | null;
  /** In the list only: what it shows of the report. */
  summary?: { source: string; rows: number; f1: number | null; false_positive_rate: number | null } | null;
}

export const SCORES: Array<[keyof Scores, string, "high" | "low"]> = [
  ["precision", "Precision", "high"],
  ["recall", "Recall", "high"],
  ["f1", "F1", "high"],
  ["accuracy", "Accuracy", "high"],
  ["false_positive_rate", "False-positive rate", "low"],
];

/** A score with four decimals, or n/a. */
export const show = (value: number | null | undefined) => (value === null || value === undefined ? "n/a" : value.toFixed(4));

function Examples({ title, rows, kind }: { title: string; rows: RowExample[] | undefined; kind: string }) {
  if (!rows?.length) return null;
  return (
    <>
      <h3>{title}</h3>
      <div class="table-wrap">
        <table class="eval-examples" data-examples={kind}>
          <thead>
            <tr>
              <th>Row</th>
              <th>Category</th>
              <th>Score</th>
              <th>Text</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.row}>
                <td>{row.log_id ? <a href={href(["logs", row.log_id])}>{row.row}</a> : row.row}</td>
                <td>{row.category ?? "–"}</td>
                <td>{row.score === undefined ? "–" : row.score.toFixed(3)}</td>
                <td>{row.text}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function Result({ result }: { result: EvalResult }) {
  const c = result.confusion;
  const subject = `${result.subject.kind === "file" ? "guardrail" : result.subject.kind} ${result.subject.id}`;
  return (
    <article class="eval-result" data-subject={result.subject.id}>
      <h2>{subject}</h2>
      <p class="muted">
        {result.rows} rows, {result.errored_rows} with a check error
      </p>
      {(result.warnings ?? []).map((warning) => (
        <p class="warning" key={warning} data-field="eval-warning">
          {warning}
        </p>
      ))}
      <dl class="facts scores">
        {SCORES.map(([key, label]) => (
          <div key={key} data-score={key}>
            <dt>{label}</dt>
            <dd>{show(result.scores[key])}</dd>
          </div>
        ))}
      </dl>
      <div class="table-wrap">
        <table class="confusion">
          <thead>
            <tr>
              <th />
              <th>Flagged</th>
              <th>Passed</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>Label 1 (should fail)</td>
              <td data-confusion="true_positives">{c.true_positives}</td>
              <td data-confusion="false_negatives">{c.false_negatives}</td>
            </tr>
            <tr>
              <td>Label 0 (should pass)</td>
              <td data-confusion="false_positives">{c.false_positives}</td>
              <td data-confusion="true_negatives">{c.true_negatives}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <h3>Checks, p50 / p99 latency</h3>
      <ul>
        {result.checks.map((check, i) => (
          <li key={i}>
            {check.guardrail} · {check.check}: {check.latency_ms.p50.toFixed(3)} / {check.latency_ms.p99.toFixed(3)} ms
          </li>
        ))}
      </ul>
      {(result.categories ?? []).length > 0 && (
        <>
          <h3>Categories</h3>
          <div class="table-wrap">
            <table class="eval-categories">
              <thead>
                <tr>
                  <th>Category</th>
                  <th>Rows</th>
                  <th>Precision</th>
                  <th>Recall</th>
                  <th>F1</th>
                </tr>
              </thead>
              <tbody>
                {result.categories!.map((k) => (
                  <tr key={k.category}>
                    <td>{k.category}</td>
                    <td>{k.rows}</td>
                    <td>{show(k.scores.precision)}</td>
                    <td>{show(k.scores.recall)}</td>
                    <td>{show(k.scores.f1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <Examples title="Worst misses (label 1, passed)" rows={result.worst_misses} kind="misses" />
      <Examples title="Worst false alarms (label 0, flagged)" rows={result.worst_false_alarms} kind="false-alarms" />
    </article>
  );
}

/** The page of one run; a running one is looked at again every two seconds. */
export function EvalReportPage({ id }: { id: string }) {
  const loaded = useLoad(() => admin<EvalRun>(`/evals/${encodeURIComponent(id)}`), [id]);
  const running = loaded.data?.status === "running";
  useEffect(() => {
    if (!running) return undefined;
    const timer = setTimeout(loaded.reload, 2000);
    return () => clearTimeout(timer);
  }, [running, loaded.data]);
  return (
    <section>
      <p>
        <a href={href(["evals"])}>← Evaluations</a>
      </p>
      <Await loaded={loaded}>
        {(found) => (
          <>
            <PageHead title={found.name}>
              <span class="tag" data-field="eval-status">
                {found.status}
              </span>
            </PageHead>
            <p class="muted">
              Started {when(found.created_at)}
              {found.report && <> · rows from {found.report.source}</>}
            </p>
            {found.status === "failed" && <p class="error">{found.error}</p>}
            {found.status === "running" && <p class="muted">Running…</p>}
            {found.report?.results.map((result, index) => (
              <Result key={index} result={result} />
            ))}
          </>
        )}
      </Await>
    </section>
  );
}
