/**
 * Evaluation runs (docs/quality-loop.md): start one (a saved guardrail or a policy on a dataset),
 * the runs of the workspace with their dataset and F1, one run's report, and any two reports side
 * by side: scores, confusion counts and per-check latency, with the better figure of each row marked.
 */
import { useEffect, useState } from "preact/hooks";
import { admin, call, type List } from "../api";
import { go, href, useRoute } from "../router";
import { useSession } from "../session";
import { Await, ErrorBox, ListTable, PageHead, useLoad, when } from "../ui";
import { EvalReportPage, type EvalResult, type EvalRun, SCORES, show } from "./eval-report";

/** Starts a run: what to measure, on which dataset; goes to the run's page. */
function StartForm({ workspaceId, dataset }: { workspaceId: string; dataset?: string | undefined }) {
  const choices = useLoad(
    () =>
      Promise.all([
        admin<List<{ id: string; name: string }>>(`/workspaces/${encodeURIComponent(workspaceId)}/guardrails`),
        admin<List<{ id: string; name: string }>>("/policies"),
        admin<List<{ id: string; name: string; rows: number }>>("/datasets", { workspace_id: workspaceId }),
      ]),
    [workspaceId],
  );
  const [subject, setSubject] = useState("");
  const [datasetId, setDatasetId] = useState(dataset ?? "");
  const [name, setName] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <Await loaded={choices}>
      {([guardrails, policies, datasets]) => (
        <form
          class="eval-start"
          onSubmit={async (event) => {
            event.preventDefault();
            const [kind, id] = subject.split(":", 2) as ["guardrail" | "policy", string];
            setBusy(true);
            try {
              const run = await call<EvalRun>("POST", "/admin/v1/evals", {
                body: {
                  workspace_id: workspaceId,
                  [kind === "policy" ? "policy_id" : "guardrail_id"]: id,
                  dataset_id: datasetId,
                  ...(name.trim() && { name: name.trim() }),
                },
              });
              go(["evals", run.id]);
            } catch (failure) {
              setError(failure);
            } finally {
              setBusy(false);
            }
          }}
        >
          <h2>New evaluation</h2>
          <label class="filter">
            <span>Guardrail or policy</span>
            <select name="subject" value={subject} onChange={(e) => setSubject((e.target as HTMLSelectElement).value)}>
              <option value="">choose…</option>
              <optgroup label="Guardrails">
                {guardrails.data.map((g) => (
                  <option key={g.id} value={`guardrail:${g.id}`}>
                    {g.name} ({g.id})
                  </option>
                ))}
              </optgroup>
              <optgroup label="Policies">
                {policies.data.map((p) => (
                  <option key={p.id} value={`policy:${p.id}`}>
                    {p.name} ({p.id})
                  </option>
                ))}
              </optgroup>
            </select>
          </label>
          <label class="filter">
            <span>Dataset</span>
            <select name="dataset" value={datasetId} onChange={(e) => setDatasetId((e.target as HTMLSelectElement).value)}>
              <option value="">choose…</option>
              {datasets.data.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({d.rows} rows)
                </option>
              ))}
            </select>
          </label>
          <label class="filter">
            <span>Name (optional)</span>
            <input name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </label>
          <div class="filter-actions">
            <button type="submit" disabled={busy || !subject || !datasetId}>
              Run
            </button>
          </div>
          {datasets.data.length === 0 && (
            <p class="muted">
              No dataset in this workspace yet: make one on the <a href={href(["datasets"])}>Datasets</a> page.
            </p>
          )}
          <ErrorBox error={error} />
        </form>
      )}
    </Await>
  );
}

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

export function Evals({ id }: { id?: string | undefined }) {
  const route = useRoute();
  const { workspaceId } = useSession();
  const compare = route.query.get("compare")?.split(",");
  // Loaded again on coming back from a run's page: the run may be new, or done since.
  const runs = useLoad(() => admin<List<EvalRun>>("/evals"), [id]);
  const [chosen, setChosen] = useState<string[]>([]);
  const running = runs.data?.data.some((run) => run.status === "running") ?? false;
  useEffect(() => {
    if (!running || id) return undefined;
    const timer = setTimeout(runs.reload, 2000);
    return () => clearTimeout(timer);
  }, [running, runs.data, id]);
  if (id) return <EvalReportPage id={id} />;
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
        A guardrail or policy measured on the labelled rows of a dataset (<code>POST /admin/v1/evals</code>, or{" "}
        <code>guardgate eval</code>). Open a run for its report; choose two to set their reports side by side.
      </p>
      {workspaceId && <StartForm workspaceId={workspaceId} dataset={route.query.get("dataset") ?? undefined} />}
      <h2>Runs</h2>
      <Await loaded={runs}>
        {(list) => (
          <ListTable
            items={list.data}
            empty="No evaluation yet."
            heads={["", "Name", "Status", "Dataset", "Rows", "F1", "Started"]}
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
                <td>
                  <a href={href(["evals", run.id])}>{run.name}</a>
                </td>
                <td>{run.status === "failed" ? `failed: ${run.error ?? ""}` : run.status}</td>
                <td data-field="source">{run.summary?.source ?? "–"}</td>
                <td data-field="rows">{run.summary?.rows ?? "–"}</td>
                <td data-field="f1">{run.summary ? show(run.summary.f1) : "–"}</td>
                <td>{when(run.created_at)}</td>
              </tr>
            )}
          />
        )}
      </Await>
    </section>
  );
}
