/**
 * Guardrails of the workspace: the list, and the editor. The editor's check forms are generated
 * from the parameter schemas of `GET /admin/v1/checks`; the whole guardrail is validated in the
 * browser before saving, the gateway's error path is shown at its field, and "try it" runs the
 * unsaved guardrail on a sample text through `POST /v1/hooks/evaluate`.
 */
import { useState } from "preact/hooks";
import { admin, ApiError, call, type List } from "../api";
import { idFromName } from "../record-id";
import { go, href } from "../router";
import { type Schema, validate } from "../schema";
import { SchemaForm } from "../schema-form";
import { useSession } from "../session";
import {
  Await,
  DeleteButton,
  ErrorBox,
  FileBadge,
  type FileManaged,
  Json,
  ListTable,
  ms,
  PageHead,
  useLoad,
  Verdict,
} from "../ui";

/** A check of the catalog. */
interface CheckInfo {
  id: string;
  name: string;
  description: string;
  sides: string[];
  class: string;
  available: boolean;
  parameters: Schema;
}

interface CheckEntry {
  id: string;
  parameters?: Record<string, unknown>;
  is_enabled?: boolean;
}

interface Definition {
  id?: string;
  name?: string;
  side?: "input" | "output";
  async?: boolean;
  deny?: boolean;
  sequential?: boolean;
  on_success?: Record<string, unknown>;
  on_fail?: Record<string, unknown>;
  checks: CheckEntry[];
}

interface GuardrailRecord extends FileManaged {
  id: string;
  name: string;
  version: number;
  definition: Definition;
  updated_at: string;
}

const feedback: Schema = {
  type: "object",
  properties: {
    feedback: {
      type: "object",
      description: "Logged with the request.",
      properties: { value: { type: "number" }, weight: { type: "number" }, metadata: { type: "object" } },
    },
  },
};

/** The guardrail's own settings; its checks have forms of their own. */
const settingsSchema: Schema = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 200 },
    side: { type: "string", enum: ["input", "output"], description: "The one side the guardrail validates." },
    async: { type: "boolean", default: true, description: "Run beside the request and only log the verdict." },
    deny: { type: "boolean", default: false, description: "A failed check denies the request with 446 (else 246)." },
    sequential: {
      type: "boolean",
      default: false,
      description: "Run the checks one after another, stopping at the first failure.",
    },
    on_success: { ...feedback, description: "Feedback when every check passes." },
    on_fail: { ...feedback, description: "Feedback when a check fails." },
  },
  required: ["side"],
};

const idSchema: Schema = {
  type: "object",
  properties: {
    id: {
      type: "string",
      pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$",
      description: "Used in configs; made from the name when empty (Short prompts → short-prompts).",
    },
  },
};

function List_({ workspace }: { workspace: string }) {
  const loaded = useLoad(
    () => admin<List<GuardrailRecord>>(`/workspaces/${encodeURIComponent(workspace)}/guardrails`),
    [workspace],
  );
  const [error, setError] = useState<unknown>();
  return (
    <section>
      <PageHead title="Guardrails">
        <a class="button" href={href(["guardrails", "new"])}>
          New guardrail
        </a>
      </PageHead>
      <ErrorBox error={error} />
      <Await loaded={loaded}>
        {(list) => (
          <ListTable
            items={list.data}
            empty="No guardrails yet."
            heads={["Name", "Id", "Side", "Checks", "Mode", ""]}
            row={(g) => (
              <tr key={g.id} data-guardrail-id={g.id}>
                <td>
                  <a href={href(["guardrails", g.id])}>{g.name}</a> <FileBadge record={g} />
                </td>
                <td>{g.id}</td>
                <td>{g.definition.side ?? "either"}</td>
                <td>{g.definition.checks.map((c) => c.id).join(", ")}</td>
                <td>
                  {g.definition.async === false ? "sync" : "async"}
                  {g.definition.deny ? " · deny" : ""}
                </td>
                <td>
                  <DeleteButton
                    what={`guardrail ${g.id}`}
                    path={`/workspaces/${encodeURIComponent(workspace)}/guardrails/${encodeURIComponent(g.id)}`}
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

function TryIt({ definition, checksReady }: { definition: Definition; checksReady: boolean }) {
  const { me, workspaceId } = useSession();
  const [text, setText] = useState("");
  const [result, setResult] = useState<{
    status: number;
    hook_results: Record<
      string,
      Array<{
        id: string;
        verdict: boolean;
        policy?: { id: string; name: string };
        monitor?: boolean;
        checks: Array<{ id: string; verdict: boolean; execution_time: number; error?: unknown; data?: { explanation?: string } }>;
      }>
    >;
  }>();
  const [error, setError] = useState<unknown>();
  const side = definition.side ?? "input";
  return (
    <section class="try-it">
      <h2>Try it</h2>
      <textarea
        name="sample"
        rows={3}
        placeholder="A sample text"
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <button
        type="button"
        disabled={!checksReady}
        onClick={async () => {
          setError(undefined);
          setResult(undefined);
          const { id: _id, ...rest } = definition;
          const chat = { model: "sample", messages: [{ role: "user", content: side === "input" ? text : "sample" }] };
          const body: Record<string, unknown> = {
            side,
            guardrails: [{ ...rest, id: "try-it", side }],
            request_type: "chatComplete",
            request: chat,
          };
          if (side === "output") {
            body.response = {
              object: "chat.completion",
              choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            };
          }
          try {
            // An organization admin key has no workspace of its own: it names the one being looked at.
            const workspace = me.workspace_id ? undefined : (workspaceId ?? undefined);
            // Marked, so the request log tells it from an application's evaluations.
            const headers = { "x-gateway-try-it": "true" };
            setResult(await call("POST", "/v1/hooks/evaluate", { body, headers, ...(workspace && { workspace }) }));
          } catch (failure) {
            setError(failure);
          }
        }}
      >
        Run
      </button>
      <ErrorBox error={error} />
      {result && (
        <div class="try-result" data-status={result.status}>
          <p>
            Status <strong>{result.status}</strong>
          </p>
          {[...(result.hook_results.before_request_hooks ?? []), ...(result.hook_results.after_request_hooks ?? [])].flatMap(
            (g) =>
              g.checks.map((c, i) => (
                <p key={`${g.id}${i}`} data-check={c.id} data-guardrail={g.id}>
                  {g.policy && (
                    <span class="tag" data-policy={g.policy.id}>
                      policy {g.policy.name}
                      {g.monitor ? " · monitor" : ""}
                    </span>
                  )}{" "}
                  {c.id} <Verdict outcome={c.error !== undefined ? "errored" : c.verdict} /> {ms(c.execution_time)}{" "}
                  <span class="muted">{c.data?.explanation}</span>
                </p>
              )),
          )}
          <details>
            <summary>hook_results</summary>
            <Json value={result.hook_results} />
          </details>
        </div>
      )}
    </section>
  );
}

function Editor({ workspace, id }: { workspace: string; id: string | undefined }) {
  const base = `/workspaces/${encodeURIComponent(workspace)}/guardrails`;
  const loaded = useLoad(async () => {
    const [catalog, record] = await Promise.all([
      admin<List<CheckInfo>>("/checks"),
      id ? admin<GuardrailRecord>(`${base}/${encodeURIComponent(id)}`) : Promise.resolve(undefined),
    ]);
    return { catalog: catalog.data, record };
  }, [workspace, id]);
  return <Await loaded={loaded}>{({ catalog, record }) => <EditorForm catalog={catalog} record={record} base={base} />}</Await>;
}

function EditorForm({ catalog, record, base }: { catalog: CheckInfo[]; record: GuardrailRecord | undefined; base: string }) {
  const [definition, setDefinition] = useState<Definition>(() => {
    const { id: _id, ...rest } = record?.definition ?? { checks: [] };
    return { side: "input", async: false, ...rest, ...(record && { name: record.name }), checks: rest.checks ?? [] };
  });
  const [newId, setNewId] = useState<Record<string, unknown>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>();
  const [saved, setSaved] = useState<string>();
  const [adding, setAdding] = useState("");
  const byId = new Map(catalog.map((c) => [c.id, c]));
  const side = definition.side ?? "input";
  const offered = catalog.filter((c) => c.sides.includes(side));

  const problems = (): Record<string, string> => {
    const found = validate(settingsSchema, { ...definition, checks: undefined });
    if (!record) validate(idSchema, newId, "", found);
    if (!definition.checks.length) found.checks = "add at least one check";
    definition.checks.forEach((check, index) => {
      const info = byId.get(check.id);
      if (!info) found[`checks[${index}].id`] = `"${check.id}" is not a known check`;
      else validate(info.parameters, check.parameters ?? {}, `checks[${index}].parameters`, found);
    });
    return found;
  };

  const save = async () => {
    setFailure(undefined);
    setSaved(undefined);
    const found = problems();
    setErrors(found);
    if (Object.keys(found).length) return;
    const madeId = typeof newId.id === "string" && newId.id.trim() ? newId.id.trim() : idFromName(definition.name);
    const body = record ? { ...definition, version: record.version } : { ...definition, ...(madeId && { id: madeId }) };
    try {
      const answer = record
        ? await call<GuardrailRecord>("PUT", `/admin/v1${base}/${encodeURIComponent(record.id)}`, { body })
        : await call<GuardrailRecord>("POST", `/admin/v1${base}`, { body });
      setSaved(`Saved ${answer.id} (version ${answer.version}).`);
      if (!record) go(["guardrails", answer.id]);
    } catch (error) {
      if (error instanceof ApiError && error.path) setErrors({ [error.path]: error.problem });
      setFailure(error);
    }
  };

  const setCheck = (index: number, entry: CheckEntry) =>
    setDefinition({ ...definition, checks: definition.checks.map((c, i) => (i === index ? entry : c)) });

  return (
    <section class="editor">
      <p>
        <a href={href(["guardrails"])}>← Guardrails</a>
      </p>
      <PageHead title={record ? `Guardrail ${record.name}` : "New guardrail"}>{record && <FileBadge record={record} />}</PageHead>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        {!record && (
          <SchemaForm
            schema={idSchema}
            value={newId}
            onChange={(v) => setNewId((v ?? {}) as Record<string, unknown>)}
            path=""
            errors={errors}
          />
        )}
        <SchemaForm
          schema={settingsSchema}
          value={definition}
          onChange={(v) => setDefinition({ ...(v as Definition), checks: definition.checks })}
          path=""
          errors={errors}
        />
        <h2>Checks</h2>
        {errors.checks && <p class="field-error">{errors.checks}</p>}
        {definition.checks.map((check, index) => {
          const info = byId.get(check.id);
          return (
            <fieldset class="check" key={`${index}:${check.id}`} data-check-index={index} data-check={check.id}>
              <legend>
                {info?.name ?? check.id} <code>{check.id}</code>
              </legend>
              {info && <p class="hint">{info.description}</p>}
              {info && !info.available && <p class="error">The organization's plan does not include this check.</p>}
              {errors[`checks[${index}].id`] && <p class="field-error">{errors[`checks[${index}].id`]}</p>}
              {info && (
                <SchemaForm
                  schema={info.parameters}
                  value={check.parameters ?? {}}
                  path={`checks[${index}].parameters`}
                  errors={errors}
                  onChange={(v) => setCheck(index, { ...check, parameters: (v ?? {}) as Record<string, unknown> })}
                />
              )}
              <div class="row">
                <label class="inline">
                  <input
                    type="checkbox"
                    checked={check.is_enabled !== false}
                    onChange={(e) => {
                      const { is_enabled: _off, ...rest } = check;
                      setCheck(index, (e.target as HTMLInputElement).checked ? rest : { ...rest, is_enabled: false });
                    }}
                  />{" "}
                  enabled
                </label>
                <button
                  type="button"
                  class="small danger"
                  onClick={() => setDefinition({ ...definition, checks: definition.checks.filter((_, i) => i !== index) })}
                >
                  Remove
                </button>
              </div>
            </fieldset>
          );
        })}
        <div class="row add-check">
          <select
            name="add-check"
            aria-label="Check to add"
            value={adding}
            onChange={(e) => setAdding((e.target as HTMLSelectElement).value)}
          >
            <option value="">Add a check…</option>
            {offered.map((c) => (
              <option key={c.id} value={c.id} disabled={!c.available}>
                {c.name} ({c.id})
              </option>
            ))}
          </select>
          <button
            type="button"
            class="secondary"
            disabled={!adding}
            onClick={() => {
              setDefinition({ ...definition, checks: [...definition.checks, { id: adding, parameters: {} }] });
              setAdding("");
            }}
          >
            Add
          </button>
        </div>
        <div class="row">
          <button type="submit">Save</button>
          {saved && <span class="ok-text">{saved}</span>}
        </div>
        <ErrorBox error={failure} />
      </form>
      <TryIt definition={definition} checksReady={definition.checks.length > 0} />
    </section>
  );
}

export function Guardrails({ id }: { id: string | undefined }) {
  const { workspaceId } = useSession();
  const workspace = workspaceId!;
  if (id === undefined) return <List_ workspace={workspace} />;
  return <Editor key={id} workspace={workspace} id={id === "new" ? undefined : id} />;
}
