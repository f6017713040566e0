/**
 * Datasets made from request logs (docs/quality-loop.md): the workspace's list, a form that makes
 * one from a log filter and a label rule, and a dataset's rows with each label switchable, and its
 * JSONL export.
 */
import { useState } from "preact/hooks";
import { admin, call, type List, storedKey } from "../api";
import { go, href } from "../router";
import { useSession } from "../session";
import { Await, ErrorBox, ListTable, PageHead, useLoad, when } from "../ui";

export interface Dataset {
  id: string;
  workspace_id: string;
  name: string;
  filter: Record<string, unknown>;
  label_rule: string | null;
  status: string;
  rows: number;
  positives: number;
  skipped: { no_body: number };
  created_at: string;
}

interface DatasetRow {
  seq: number;
  log_id: string;
  input: string;
  output: string | null;
  verdicts: Record<string, string>;
  failed_checks: string[];
  feedback: number[];
  label: 0 | 1;
}

function CreateForm({ workspaceId, onCreated }: { workspaceId: string; onCreated(d: Dataset): void }) {
  const [draft, setDraft] = useState({ name: "", label_rule: "", model: "", feedback_max: "", guardrail_id: "" });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof draft, label: string, placeholder = "") => (
    <label class="filter">
      <span>{label}</span>
      <input
        name={name}
        value={draft[name]}
        placeholder={placeholder}
        onInput={(e) => setDraft({ ...draft, [name]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  return (
    <form
      class="filters dataset-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const filter: Record<string, unknown> = {};
          if (draft.model) filter.model = draft.model;
          if (draft.guardrail_id) filter.guardrail_id = draft.guardrail_id;
          if (draft.feedback_max) filter.feedback_max = Number(draft.feedback_max);
          const created = await call<Dataset>("POST", "/admin/v1/datasets", {
            body: {
              name: draft.name,
              workspace_id: workspaceId,
              filter,
              ...(draft.label_rule && { label_rule: draft.label_rule }),
            },
          });
          onCreated(created);
        } catch (failure) {
          setError(failure);
        } finally {
          setBusy(false);
        }
      }}
    >
      {field("name", "Name", "week 12 traffic")}
      {field("label_rule", "Label rule", "feedback <= -5 or guardrail:no-injection failed")}
      {field("model", "Model")}
      {field("guardrail_id", "Guardrail ran")}
      {field("feedback_max", "Feedback at most", "-5")}
      <div class="filter-actions">
        <button type="submit" disabled={busy || !draft.name.trim()}>
          Make dataset
        </button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

/** Downloads the export with the signed-in key (a plain link could not send it). */
async function download(dataset: Dataset, redact: boolean): Promise<void> {
  const response = await fetch(`/admin/v1/datasets/${encodeURIComponent(dataset.id)}/export${redact ? "?redact_pii=true" : ""}`, {
    headers: { "x-gateway-api-key": storedKey() ?? "" },
  });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = `${dataset.id}.jsonl`;
  link.click();
  URL.revokeObjectURL(link.href);
}

function DatasetDetail({ id }: { id: string }) {
  const dataset = useLoad(() => admin<Dataset>(`/datasets/${encodeURIComponent(id)}`), [id]);
  const rows = useLoad(() => admin<List<DatasetRow>>(`/datasets/${encodeURIComponent(id)}/rows`, { limit: 100 }), [id]);
  const [error, setError] = useState<unknown>();
  return (
    <section>
      <p>
        <a href={href(["datasets"])}>← Datasets</a>
      </p>
      <Await loaded={dataset}>
        {(d) => (
          <>
            <PageHead title={d.name}>
              <a class="button small" href={href(["evals"], { dataset: d.id })} data-field="evaluate">
                Evaluate a guardrail on it
              </a>
              <button type="button" class="secondary small" onClick={() => download(d, false)}>
                Export JSONL
              </button>
              <button type="button" class="secondary small" onClick={() => download(d, true)}>
                Export with PII redacted
              </button>
            </PageHead>
            <dl class="facts">
              <div>
                <dt>Rows</dt>
                <dd data-field="rows">{d.rows}</dd>
              </div>
              <div>
                <dt>Label 1</dt>
                <dd data-field="positives">{d.positives}</dd>
              </div>
              <div>
                <dt>Skipped (no body logged)</dt>
                <dd data-field="skipped">{d.skipped.no_body}</dd>
              </div>
              <div>
                <dt>Label rule</dt>
                <dd>{d.label_rule ?? "none: every row 0"}</dd>
              </div>
              <div>
                <dt>Filter</dt>
                <dd>{JSON.stringify(d.filter)}</dd>
              </div>
            </dl>
          </>
        )}
      </Await>
      <ErrorBox error={error} />
      <Await loaded={rows}>
        {(list) => (
          <div class="table-wrap">
            <table class="dataset-rows">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Input</th>
                  <th>Failed checks</th>
                  <th>Feedback</th>
                  <th>Label</th>
                </tr>
              </thead>
              <tbody>
                {list.data.map((row) => (
                  <tr key={row.seq} data-row-log={row.log_id}>
                    <td>
                      <a href={href(["logs", row.log_id])}>{row.seq}</a>
                    </td>
                    <td class="text-cell">{row.input.slice(0, 160)}</td>
                    <td>{row.failed_checks.join(", ") || "–"}</td>
                    <td>{row.feedback.join(", ") || "–"}</td>
                    <td>
                      <button
                        type="button"
                        class={`small label-toggle ${row.label ? "failed" : ""}`}
                        data-label={row.label}
                        title="Switch the label"
                        onClick={async () => {
                          try {
                            await call(
                              "PUT",
                              `/admin/v1/datasets/${encodeURIComponent(id)}/rows/${encodeURIComponent(row.log_id)}/label`,
                              {
                                body: { label: row.label ? 0 : 1 },
                              },
                            );
                            rows.reload();
                            dataset.reload();
                          } catch (failure) {
                            setError(failure);
                          }
                        }}
                      >
                        {row.label}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Await>
    </section>
  );
}

export function Datasets({ id }: { id?: string | undefined }) {
  const { workspaceId } = useSession();
  const list = useLoad(() => admin<List<Dataset>>("/datasets", { workspace_id: workspaceId ?? undefined }), [workspaceId]);
  if (id) return <DatasetDetail id={id} />;
  return (
    <section>
      <PageHead title="Datasets" />
      <p class="muted">
        Labelled rows made from request logs whose bodies were kept; evaluate a guardrail on one with{" "}
        <code>guardgate eval --dataset ID</code> or on the Evaluations page.
      </p>
      {workspaceId && <CreateForm workspaceId={workspaceId} onCreated={(d) => go(["datasets", d.id])} />}
      <Await loaded={list}>
        {(found) => (
          <ListTable
            items={found.data}
            empty="No dataset yet."
            heads={["Name", "Rows", "Label 1", "Skipped", "Label rule", "Made"]}
            class="datasets"
            row={(d) => (
              <tr key={d.id} data-dataset-id={d.id}>
                <td>
                  <a href={href(["datasets", d.id])}>{d.name}</a>
                </td>
                <td>{d.rows}</td>
                <td>{d.positives}</td>
                <td>{d.skipped.no_body}</td>
                <td>
                  <code>{d.label_rule ?? "–"}</code>
                </td>
                <td>{when(d.created_at)}</td>
              </tr>
            )}
          />
        )}
      </Await>
    </section>
  );
}
