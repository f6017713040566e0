/**
 * Policies: guardrails every request in a scope runs, which the client cannot remove. The list
 * shows the policies the key sees (the organisation's and the workspace's); the editor saves a
 * workspace policy (or, for an org admin, an organisation-wide one) from the workspace's saved
 * guardrails and inline ones, with its mode and scope; a replay shows what it would have done to
 * the workspace's logged requests.
 */
import { useState } from "preact/hooks";
import { admin, ApiError, call, type List } from "../api";
import { type GuardrailChoice, GuardrailChoices } from "../guardrail-choices";
import { go, href } from "../router";
import { useSession } from "../session";
import { Await, DeleteButton, ErrorBox, FileBadge, type FileManaged, ListTable, ms, PageHead, useLoad } from "../ui";

interface Definition {
  id: string;
  side?: "input" | "output";
}

interface PolicyRecord extends FileManaged {
  id: string;
  name: string;
  workspace_id: string | null;
  mode: "enforce" | "monitor";
  scope: { workspaces?: string[]; api_keys?: string[]; models?: string[] };
  input_guardrails: Definition[];
  output_guardrails: Definition[];
}

interface Report {
  totals: { logs: number; replayed: number; skipped: number; passed: number; flagged: number; denied: number };
  checks: Array<{ guardrail: string; side: string; check: string; passed: number; failed: number; errored: number }>;
  examples: { flagged: string[]; denied: string[] };
  added_latency_ms: { p50: number; p95: number; max: number };
}

const SIDES = ["input_guardrails", "output_guardrails"] as const;
type SideKey = (typeof SIDES)[number];

function scopeText(scope: PolicyRecord["scope"]): string {
  const parts = Object.entries(scope)
    .filter(([, ids]) => ids?.length)
    .map(([key, ids]) => `${key.replace("_", " ")}: ${(ids as string[]).join(", ")}`);
  return parts.length ? parts.join("; ") : "every request";
}

function PolicyList({ workspace }: { workspace: string }) {
  const loaded = useLoad(() => admin<List<PolicyRecord>>("/policies"), [workspace]);
  const [error, setError] = useState<unknown>();
  return (
    <section>
      <PageHead title="Policies">
        <a class="button" href={href(["policies", "new"])}>
          New policy
        </a>
      </PageHead>
      <p class="muted">Guardrails added to every request in a policy's scope, whatever config the client sends.</p>
      <ErrorBox error={error} />
      <Await loaded={loaded}>
        {(list) => (
          <ListTable
            items={list.data}
            empty="No policies yet."
            heads={["Name", "Applies in", "Mode", "Scope", "Guardrails", ""]}
            row={(p) => (
              <tr key={p.id} data-policy-id={p.id}>
                <td>
                  <a href={href(["policies", p.id])}>{p.name}</a> <FileBadge record={p} />
                </td>
                <td>{p.workspace_id ?? "the organization"}</td>
                <td data-mode={p.mode}>{p.mode}</td>
                <td>{scopeText(p.scope)}</td>
                <td>{[...p.input_guardrails, ...p.output_guardrails].map((g) => g.id).join(", ")}</td>
                <td>
                  <DeleteButton
                    what={`policy ${p.id}`}
                    path={`/policies/${encodeURIComponent(p.id)}`}
                    onDeleted={loaded.reload}
                    onError={setError}
                  />
                </td>
              </tr>
            )}
          />
        )}
      </Await>
    </section>
  );
}

function listOf(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

function ReplayPanel({ policy }: { policy: string }) {
  const [report, setReport] = useState<Report>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <section class="replay">
      <h2>Replay</h2>
      <p class="muted">What this policy would have done to the latest logged requests whose bodies were kept.</p>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setFailure(undefined);
          try {
            setReport(
              (await call<{ report: Report }>("POST", "/admin/v1/replay", { body: { policy_id: policy, limit: 1000 } })).report,
            );
          } catch (error) {
            setFailure(error);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy ? "Replaying…" : "Replay the latest 1000 requests"}
      </button>
      <ErrorBox error={failure} />
      {report && (
        <div class="replay-result" data-denied={report.totals.denied}>
          <p>
            {report.totals.replayed} replayed ({report.totals.skipped} without a kept body): {report.totals.passed} passed,{" "}
            <span data-outcome="flagged">{report.totals.flagged} flagged (246)</span>,{" "}
            <span data-outcome="denied">{report.totals.denied} denied (446)</span>; the checks would have added{" "}
            {ms(report.added_latency_ms.p50)} (p50), {ms(report.added_latency_ms.p95)} (p95).
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Guardrail</th>
                  <th>Side</th>
                  <th>Check</th>
                  <th>Passed</th>
                  <th>Failed</th>
                  <th>Errored</th>
                </tr>
              </thead>
              <tbody>
                {report.checks.map((c) => (
                  <tr key={`${c.side}:${c.guardrail}:${c.check}`} data-check={c.check}>
                    <td>{c.guardrail}</td>
                    <td>{c.side}</td>
                    <td>{c.check}</td>
                    <td>{c.passed}</td>
                    <td>{c.failed}</td>
                    <td>{c.errored}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  );
}

function PolicyEditor({
  workspace,
  record,
  guardrails,
}: {
  workspace: string;
  record: PolicyRecord | undefined;
  guardrails: GuardrailChoice[];
}) {
  const { me } = useSession();
  const [id, setId] = useState("");
  const [name, setName] = useState(record?.name ?? "");
  const [orgWide, setOrgWide] = useState(record ? record.workspace_id === null : false);
  const [mode, setMode] = useState<PolicyRecord["mode"]>(record?.mode ?? "enforce");
  const [keys, setKeys] = useState((record?.scope.api_keys ?? []).join(", "));
  const [models, setModels] = useState((record?.scope.models ?? []).join(", "));
  const [picked, setPicked] = useState<Record<SideKey, string[]>>({ input_guardrails: [], output_guardrails: [] });
  const [inline, setInline] = useState<Record<SideKey, string>>({
    input_guardrails: record?.input_guardrails.length ? JSON.stringify(record.input_guardrails, null, 2) : "",
    output_guardrails: record?.output_guardrails.length ? JSON.stringify(record.output_guardrails, null, 2) : "",
  });
  const [problem, setProblem] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [saved, setSaved] = useState<string>();

  const save = async () => {
    setProblem(undefined);
    setFailure(undefined);
    const lists: Record<SideKey, unknown[]> = { input_guardrails: [], output_guardrails: [] };
    for (const key of SIDES) {
      let written: unknown;
      try {
        written = inline[key].trim() ? JSON.parse(inline[key]) : [];
        if (!Array.isArray(written)) throw new Error("not an array");
      } catch {
        setProblem(`${key}: the inline guardrails must be a JSON array`);
        return;
      }
      // A saved guardrail of this workspace; an organisation-wide policy names its workspace too.
      const refs = picked[key].map((g) => (orgWide ? `${workspace}/${g}` : g));
      lists[key] = [...refs, ...(written as unknown[])];
    }
    const scope = {
      ...(listOf(keys).length && { api_keys: listOf(keys) }),
      ...(listOf(models).length && { models: listOf(models) }),
    };
    const body = { ...(name && { name }), mode, scope, ...lists };
    try {
      const answer = record
        ? await call<PolicyRecord>("PATCH", `/admin/v1/policies/${encodeURIComponent(record.id)}`, { body })
        : await call<PolicyRecord>("POST", "/admin/v1/policies", {
            body: { ...body, ...(id && { id }), ...(!orgWide && { workspace_id: workspace }) },
          });
      setSaved(`Saved ${answer.id}.`);
      if (!record) go(["policies", answer.id]);
    } catch (error) {
      if (error instanceof ApiError && error.path) setProblem(`${error.path}: ${error.problem}`);
      setFailure(error);
    }
  };

  return (
    <section class="editor">
      <p>
        <a href={href(["policies"])}>← Policies</a>
      </p>
      <PageHead title={record ? `Policy ${record.name}` : "New policy"}>{record && <FileBadge record={record} />}</PageHead>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div class="fields">
          {!record && (
            <div class="field">
              <label for="policy-id">
                <span class="name">id</span>
                <span class="hint">Made for you when empty.</span>
              </label>
              <input id="policy-id" name="id" value={id} onInput={(e) => setId((e.target as HTMLInputElement).value)} />
            </div>
          )}
          <div class="field">
            <label for="policy-name">
              <span class="name">name</span>
            </label>
            <input id="policy-name" name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </div>
          {!record && me.role === "org_admin" && (
            <div class="field">
              <label class="inline">
                <input
                  type="checkbox"
                  name="organization"
                  checked={orgWide}
                  onChange={(e) => setOrgWide((e.target as HTMLInputElement).checked)}
                />{" "}
                Organisation-wide (every workspace), not only this workspace
              </label>
            </div>
          )}
          <div class="field">
            <label for="policy-mode">
              <span class="name">mode</span>
              <span class="hint">monitor: runs on every request, logs and counts its verdicts, never changes the answer.</span>
            </label>
            <select
              id="policy-mode"
              name="mode"
              value={mode}
              onChange={(e) => setMode((e.target as HTMLSelectElement).value as PolicyRecord["mode"])}
            >
              <option value="enforce">enforce</option>
              <option value="monitor">monitor</option>
            </select>
          </div>
          <div class="field">
            <label for="policy-keys">
              <span class="name">API keys</span>
              <span class="hint">Key ids, comma-separated; empty: every key.</span>
            </label>
            <input id="policy-keys" name="api_keys" value={keys} onInput={(e) => setKeys((e.target as HTMLInputElement).value)} />
          </div>
          <div class="field">
            <label for="policy-models">
              <span class="name">models</span>
              <span class="hint">Patterns such as @openai/* or *-mini, comma-separated; empty: every model.</span>
            </label>
            <input
              id="policy-models"
              name="models"
              value={models}
              onInput={(e) => setModels((e.target as HTMLInputElement).value)}
            />
          </div>
          {SIDES.map((key) => (
            <div class="field" key={key} data-path={key}>
              <label>
                <span class="name">{key}</span>
                <span class="hint">Saved guardrails are copied into the policy when it is saved.</span>
              </label>
              <GuardrailChoices
                field={key}
                side={key === "input_guardrails" ? "input" : "output"}
                guardrails={guardrails}
                chosen={picked[key]}
                onChange={(ids) => setPicked({ ...picked, [key]: ids })}
              />
              <textarea
                name={`${key}:inline`}
                class="json"
                rows={5}
                spellcheck={false}
                placeholder='[{"id": "brief", "deny": true, "default.wordCount": {"maxWords": 50}}]'
                value={inline[key]}
                onInput={(e) => setInline({ ...inline, [key]: (e.target as HTMLTextAreaElement).value })}
              />
            </div>
          ))}
        </div>
        {problem && (
          <p class="field-error" role="alert">
            {problem}
          </p>
        )}
        <div class="row">
          <button type="submit">Save</button>
          {saved && <span class="ok-text">{saved}</span>}
        </div>
        <ErrorBox error={failure} />
      </form>
      {record && <ReplayPanel policy={record.id} />}
    </section>
  );
}

export function Policies({ id }: { id: string | undefined }) {
  const { workspaceId } = useSession();
  const workspace = workspaceId!;
  const loaded = useLoad(async () => {
    if (id === undefined) return undefined;
    const [guardrails, record] = await Promise.all([
      admin<List<GuardrailChoice>>(`/workspaces/${encodeURIComponent(workspace)}/guardrails`),
      id === "new" ? Promise.resolve(undefined) : admin<PolicyRecord>(`/policies/${encodeURIComponent(id)}`),
    ]);
    return { guardrails: guardrails.data, record };
  }, [workspace, id]);
  if (id === undefined) return <PolicyList workspace={workspace} />;
  return (
    <Await loaded={loaded}>
      {(data) =>
        data ? <PolicyEditor key={id} workspace={workspace} record={data.record} guardrails={data.guardrails} /> : null
      }
    </Await>
  );
}
