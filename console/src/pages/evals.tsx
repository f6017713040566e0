/**
 * Evaluation runs (docs/quality-loop.md): the runs of the workspace, and any two reports side by
 * side: scores, confusion counts and per-check latency, with the better figure of each row marked.
 */
import { useState } from "preact/hooks";
import { admin, type List } from "../api";
import { go, href, useRoute } from "../router";
import { Await, ListTable, PageHead, useLoad, when } from "../ui";

interface Scores {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  accuracy: number | null;
  false_positive_rate: number | null;
}

interface EvalResult {
  subject: { kind: string; id: string; name?: string };
  rows: number;
  confusion: { true_positives: number; false_positives: number; true_negatives: number; false_negatives: number };
  scores: Scores;
  checks: Array<{ guardrail: string; check: string; runs: number; latency_ms: { p50: number; p99: number } }>;
}

interface EvalRun {
  id: string;
  name: string;
  status: "running" | "done" | "failed";
  error: string | null;
  created_at: string;
  report?: { format: string; source: string; results: EvalResult[] } | null;
}

const SCORES: Array<[keyof Scores, string, "high" | "low"]> = [
  ["precision", "Precision", "high"],
  ["recall", "Recall", "high"],
  ["f1", "F1", "high"],
  ["accuracy", "Accuracy", "high"],
  ["false_positive_rate", "False-positive rate", "low"],
];

const show = (value: number | null | undefined) => (value === null || value === undefined ? "n/a" : value.toFixed(4));

/** Two runs' reports in two columns. */
function SideBySide({ ids }: { ids: [string, string] }) {
  const loaded = useLoad(
    () => Promise.all(ids.map((id) => admin<EvalRun>(`/evals/${encodeURIComponent(id)}`))) as Promise<[EvalRun, EvalRun]>,
    [ids.join(",")],
  );
  return (
    <section>
      <p>
        <a href={href(["evals"])}>← Evaluations</a>
      </p>
      <Await loaded={loaded}>
        {([a, b]) => {
          const ra = a.report?.results[0];
          const rb = b.report?.results[0];
          const better = (x: number | null | undefined, y: number | null | undefined, want: "high" | "low") =>
            x === null || x === undefined || y === null || y === undefined || x === y
              ? ""
              : (want === "high" ? x > y : x < y)
                ? "better"
                : "";
          const confusion: Array<[keyof EvalResult["confusion"], string]> = [
            ["true_positives", "Caught (label 1, flagged)"],
            ["false_negatives", "Missed (label 1, passed)"],
            ["false_positives", "False alarms (label 0, flagged)"],
            ["true_negatives", "Passed rightly (label 0, passed)"],
          ];
          return (
            <>
              <PageHead title="Two evaluations side by side" />
              <div class="table-wrap">
                <table class="eval-compare">
                  <thead>
                    <tr>
                      <th />
                      <th data-run={a.id}>{a.name}</th>
                      <th data-run={b.id}>{b.name}</th>
                    </tr>
                  </thead>
                  <tbody>
                    <tr>
                      <td>Rows</td>
                      <td>{ra?.rows ?? a.status}</td>
                      <td>{rb?.rows ?? b.status}</td>
                    </tr>
                    {SCORES.map(([key, label, want]) => (
                      <tr key={key} data-score={key}>
                        <td>{label}</td>
                        <td class={better(ra?.scores[key], rb?.scores[key], want)}>{show(ra?.scores[key])}</td>
                        <td class={better(rb?.scores[key], ra?.scores[key], want)}>{show(rb?.scores[key])}</td>
                      </tr>
                    ))}
                    {confusion.map(([key, label]) => (
                      <tr key={key} data-confusion={key}>
                        <td>{label}</td>
                        <td>{ra?.confusion[key] ?? "–"}</td>
                        <td>{rb?.confusion[key] ?? "–"}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h2>Checks, p50 / p99 latency</h2>
              <div class="eval-columns">
                {[ra, rb].map((result, index) => (
                  <div key={index}>
                    <h3>{[a, b][index]!.name}</h3>
                    <ul>
                      {(result?.checks ?? []).map((check, i) => (
                        <li key={i}>
                          {check.guardrail} · {check.check}: {check.latency_ms.p50.toFixed(3)} / {check.latency_ms.p99.toFixed(3)}{" "}
                          ms
                        </li>
                      ))}
                    </ul>
                  </div>
                ))}
              </div>
            </>
          );
        }}
      </Await>
    </section>
  );
}

export function Evals() {
  const route = useRoute();
  const compare = route.query.get("compare")?.split(",");
  const runs = useLoad(() => admin<List<EvalRun>>("/evals"), []);
  const [chosen, setChosen] = useState<string[]>([]);
  if (compare?.length === 2) return <SideBySide ids={[compare[0]!, compare[1]!]} />;
  return (
    <section>
      <PageHead title="Evaluations">
        <button
          type="button"
          class="small"
          disabled={chosen.length !== 2}
          onClick={() => go(["evals"], { compare: chosen.join(",") })}
        >
          Compare the two chosen
        </button>
      </PageHead>
      <p class="muted">
        Runs of <code>POST /admin/v1/evals</code>: a guardrail or policy measured on labelled rows. Choose two to set their
        reports side by side.
      </p>
      <Await loaded={runs}>
        {(list) => (
          <ListTable
            items={list.data}
            empty="No evaluation yet."
            heads={["", "Name", "Status", "Started"]}
            class="evals"
            row={(run) => (
              <tr key={run.id} data-eval-id={run.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`choose ${run.name}`}
                    checked={chosen.includes(run.id)}
                    disabled={run.status !== "done"}
                    onChange={(e) =>
                      setChosen(
                        (e.target as HTMLInputElement).checked
                          ? [...chosen, run.id].slice(-2)
                          : chosen.filter((c) => c !== run.id),
                      )
                    }
                  />
                </td>
                <td>{run.name}</td>
                <td>{run.status === "failed" ? `failed: ${run.error ?? ""}` : run.status}</td>
                <td>{when(run.created_at)}</td>
              </tr>
            )}
          />
        )}
      </Await>
    </section>
  );
}
