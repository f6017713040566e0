/**
 * Configs of the workspace: the list, and an editor where guardrails are attached by ticking them
 * (`input_guardrails`, `output_guardrails`) and the other keys are written as JSON. The gateway
 * validates a config as a request would load it; its error path is shown.
 */
import { useState } from "preact/hooks";
import { admin, ApiError, call, type List } from "../api";
import { type GuardrailChoice, GuardrailChoices } from "../guardrail-choices";
import { idFromName } from "../record-id";
import { go, href } from "../router";
import { useSession } from "../session";
import { Await, DeleteButton, ErrorBox, FileBadge, type FileManaged, ListTable, PageHead, useLoad } from "../ui";

interface ConfigRecord extends FileManaged {
  id: string;
  name: string;
  version: number;
  config: Record<string, unknown>;
}

const ATTACH = ["input_guardrails", "output_guardrails"] as const;

/** One line naming a config's guardrail entry: a saved guardrail's id, or what an inline one checks. */
function refLabel(ref: unknown): { id?: string; text: string } {
  if (typeof ref === "string") return { id: ref, text: ref };
  if (!ref || typeof ref !== "object") return { text: String(ref) };
  const entry = ref as Record<string, unknown>;
  if (typeof entry.id === "string" && !Array.isArray(entry.checks)) return { id: entry.id, text: `${entry.id} (with overrides)` };
  const checks = Array.isArray(entry.checks)
    ? entry.checks.map((c) => (c && typeof c === "object" ? String((c as { id?: unknown }).id) : String(c)))
    : Object.keys(entry).filter((key) => !/^(deny|async|on_fail|on_success|stream_mode|name|side|sequential)$/.test(key));
  return { text: `inline: ${checks.join(", ") || "no checks"}` };
}

/** A config's guardrail entries as rows, each a link when it names a saved guardrail. */
function GuardrailRefs({ refs }: { refs: unknown }) {
  const list = Array.isArray(refs) ? refs : [];
  if (!list.length) return <span class="muted">none</span>;
  return (
    <ul class="refs">
      {list.map((ref, index) => {
        const { id, text } = refLabel(ref);
        return <li key={index}>{id ? <a href={href(["guardrails", id])}>{text}</a> : text}</li>;
      })}
    </ul>
  );
}

function ConfigList({ workspace }: { workspace: string }) {
  const loaded = useLoad(() => admin<List<ConfigRecord>>(`/workspaces/${encodeURIComponent(workspace)}/configs`), [workspace]);
  const [error, setError] = useState<unknown>();
  return (
    <section>
      <PageHead title="Configs">
        <a class="button" href={href(["configs", "new"])}>
          New config
        </a>
      </PageHead>
      <ErrorBox error={error} />
      <Await loaded={loaded}>
        {(list) => (
          <ListTable
            items={list.data}
            empty="No configs yet."
            heads={["Name", "Id", "Input guardrails", "Output guardrails", ""]}
            row={(c) => (
              <tr key={c.id} data-config-id={c.id}>
                <td>
                  <a href={href(["configs", c.id])}>{c.name}</a> <FileBadge record={c} />
                </td>
                <td>{c.id}</td>
                <td data-field="input_guardrails">
                  <GuardrailRefs refs={c.config.input_guardrails} />
                </td>
                <td data-field="output_guardrails">
                  <GuardrailRefs refs={c.config.output_guardrails} />
                </td>
                <td>
                  <DeleteButton
                    what={`config ${c.id}`}
                    path={`/workspaces/${encodeURIComponent(workspace)}/configs/${encodeURIComponent(c.id)}`}
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

function ConfigEditor({
  workspace,
  record,
  guardrails,
}: {
  workspace: string;
  record: ConfigRecord | undefined;
  guardrails: GuardrailChoice[];
}) {
  const base = `/admin/v1/workspaces/${encodeURIComponent(workspace)}/configs`;
  const initial = record?.config ?? {};
  const [id, setId] = useState("");
  const [name, setName] = useState(record?.name ?? "");
  const [attached, setAttached] = useState<Record<(typeof ATTACH)[number], string[]>>({
    input_guardrails: (initial.input_guardrails as string[] | undefined) ?? [],
    output_guardrails: (initial.output_guardrails as string[] | undefined) ?? [],
  });
  const rest = Object.fromEntries(Object.entries(initial).filter(([key]) => !(ATTACH as readonly string[]).includes(key)));
  const [other, setOther] = useState(JSON.stringify(rest, null, 2));
  const [problem, setProblem] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const [saved, setSaved] = useState<string>();

  const newId = id.trim() || idFromName(name);
  const save = async () => {
    setProblem(undefined);
    setFailure(undefined);
    let parsed: Record<string, unknown>;
    try {
      parsed = other.trim() ? (JSON.parse(other) as Record<string, unknown>) : {};
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    } catch {
      setProblem("Other keys: must be a JSON object");
      return;
    }
    const config: Record<string, unknown> = { ...parsed };
    for (const key of ATTACH) if (attached[key].length) config[key] = attached[key];
    const body: Record<string, unknown> = { config, ...(name && { name }) };
    try {
      const answer = record
        ? await call<ConfigRecord>("PUT", `${base}/${encodeURIComponent(record.id)}`, {
            body: { ...body, version: record.version },
          })
        : await call<ConfigRecord>("POST", base, { body: { ...body, ...(newId && { id: newId }) } });
      setSaved(`Saved ${answer.id} (version ${answer.version}).`);
      if (!record) go(["configs", answer.id]);
    } catch (error) {
      if (error instanceof ApiError && error.path) setProblem(`${error.path}: ${error.problem}`);
      setFailure(error);
    }
  };

  return (
    <section class="editor">
      <p>
        <a href={href(["configs"])}>← Configs</a>
      </p>
      <PageHead title={record ? `Config ${record.name}` : "New config"}>{record && <FileBadge record={record} />}</PageHead>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <div class="fields">
          {!record && (
            <div class="field">
              <label for="config-id">
                <span class="name">id</span>
                <span class="hint">Sent in x-gateway-config; made from the name when empty.</span>
              </label>
              <input
                id="config-id"
                name="id"
                value={id}
                placeholder={idFromName(name)}
                onInput={(e) => setId((e.target as HTMLInputElement).value)}
              />
            </div>
          )}
          <div class="field">
            <label for="config-name">
              <span class="name">name</span>
            </label>
            <input id="config-name" name="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </div>
          {ATTACH.map((key) => (
            <div class="field" key={key} data-path={`config.${key}`}>
              <label>
                <span class="name">{key}</span>
              </label>
              <GuardrailChoices
                field={key}
                side={key === "input_guardrails" ? "input" : "output"}
                guardrails={guardrails}
                chosen={attached[key]}
                onChange={(ids) => setAttached({ ...attached, [key]: ids })}
              />
            </div>
          ))}
          <div class="field">
            <label for="config-other">
              <span class="name">Other keys</span>
              <span class="hint">retry, strategy, targets, provider, cache… as JSON (spec §2.3).</span>
            </label>
            <textarea
              id="config-other"
              name="other"
              class="json"
              rows={8}
              spellcheck={false}
              value={other}
              onInput={(e) => setOther((e.target as HTMLTextAreaElement).value)}
            />
          </div>
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
    </section>
  );
}

export function Configs({ id }: { id: string | undefined }) {
  const { workspaceId } = useSession();
  const workspace = workspaceId!;
  const loaded = useLoad(async () => {
    if (id === undefined) return undefined;
    const [guardrails, record] = await Promise.all([
      admin<List<GuardrailChoice>>(`/workspaces/${encodeURIComponent(workspace)}/guardrails`),
      id === "new"
        ? Promise.resolve(undefined)
        : admin<ConfigRecord>(`/workspaces/${encodeURIComponent(workspace)}/configs/${encodeURIComponent(id)}`),
    ]);
    return { guardrails: guardrails.data, record };
  }, [workspace, id]);
  if (id === undefined) return <ConfigList workspace={workspace} />;
  return (
    <Await loaded={loaded}>
      {(data) =>
        data ? <ConfigEditor key={id} workspace={workspace} record={data.record} guardrails={data.guardrails} /> : null
      }
    </Await>
  );
}
