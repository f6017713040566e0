/**
 * The organization and workspace pages of spec §2.6 (integrations and their provisioning,
 * workspaces, providers, plugin credentials, API keys), all one page kind: a table of the records
 * the list route answers, and create and edit forms generated from the request-body schemas of
 * the admin API's own OpenAPI document. Credentials are write-only: the API never returns them and
 * their fields start empty.
 */
import { useState } from "preact/hooks";
import { admin, ApiError, call, type List } from "../api";
import { type Schema, validate } from "../schema";
import { SchemaForm } from "../schema-form";
import { type Role, useSession } from "../session";
import { Await, DeleteButton, CopyButton, ErrorBox, PageHead, useLoad } from "../ui";

/** One kind of record the console manages through the admin API. */
export interface Resource {
  path: string;
  title: string;
  role: Role;
  /** Works on the workspace chosen in the header. */
  workspace?: boolean;
  /** The list route (OpenAPI form, `{workspace_id}` filled in from the session). */
  list: string;
  /** The item route, with `{param}` standing for the record's `key` field. */
  item: string;
  key: string;
  columns: string[];
  intro: string;
}

export const RESOURCES: Resource[] = [
  {
    path: "integrations",
    title: "Integrations",
    role: "org_admin",
    list: "/integrations",
    item: "/integrations/{integration_id}",
    key: "id",
    columns: ["slug", "name", "provider", "workspace_id", "allowed_models", "has_credentials"],
    intro: "Connections to model providers with their credentials; a workspace_id marks one created by a workspace.",
  },
  {
    path: "workspaces",
    title: "Workspaces",
    role: "org_admin",
    list: "/workspaces",
    item: "/workspaces/{workspace_id}",
    key: "id",
    columns: ["name", "id", "rate_limit", "settings"],
    intro: "Workspaces of the organization; a new one gets every auto-provisioned integration.",
  },
  {
    path: "providers",
    title: "Providers",
    role: "workspace_admin",
    workspace: true,
    list: "/workspaces/{workspace_id}/providers",
    item: "/workspaces/{workspace_id}/providers/{slug}",
    key: "slug",
    columns: ["slug", "name", "integration_id", "allowed_models", "budget", "rate_limit"],
    intro: "The workspace's AI providers: inherited from an integration, or the workspace's own.",
  },
  {
    path: "plugin-credentials",
    title: "Plugin credentials",
    role: "workspace_admin",
    list: "/plugin-integrations",
    item: "/plugin-integrations/{plugin_integration_id}",
    key: "id",
    columns: ["plugin", "name", "workspace_id", "workspaces", "credential_keys"],
    intro: "Credentials of partner guardrail plugins. Write-only: only the names of the fields held are shown.",
  },
  {
    path: "api-keys",
    title: "API keys",
    role: "workspace_admin",
    list: "/api-keys",
    item: "/api-keys/{key_id}",
    key: "id",
    columns: ["name", "role", "workspace_id", "hint", "created_at"],
    intro: "Keys and their roles. A new key is shown once, when it is made.",
  },
];

type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>> };

let openApi: Promise<OpenApi> | undefined;

/** The admin API's OpenAPI document, fetched once. */
function document(): Promise<OpenApi> {
  openApi ??= call<OpenApi>("GET", "/admin/v1/openapi.json").catch((error: unknown) => {
    openApi = undefined;
    throw error;
  });
  return openApi;
}

function bodySchema(doc: OpenApi, path: string, method: string): Schema | undefined {
  return doc.paths[`/admin/v1${path}`]?.[method]?.requestBody?.content?.["application/json"]?.schema;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "–";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A form for a request body, validated before it is sent, the API's error shown at its field. */
function BodyForm({
  schema,
  initial,
  submit,
  label,
  onDone,
}: {
  schema: Schema;
  initial: Record<string, unknown>;
  submit(body: Record<string, unknown>): Promise<unknown>;
  label: string;
  onDone(answer: unknown): void;
}) {
  const [value, setValue] = useState<Record<string, unknown>>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>();
  return (
    <form
      class="body-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setFailure(undefined);
        const found = validate(schema, value);
        setErrors(found);
        if (Object.keys(found).length) return;
        try {
          onDone(await submit(value));
        } catch (error) {
          if (error instanceof ApiError && error.path) setErrors({ [error.path]: error.problem });
          setFailure(error);
        }
      }}
    >
      <SchemaForm
        schema={schema}
        value={value}
        onChange={(v) => setValue((v ?? {}) as Record<string, unknown>)}
        path=""
        errors={errors}
      />
      <div class="row">
        <button type="submit">{label}</button>
      </div>
      <ErrorBox error={failure} />
    </form>
  );
}

/** Which workspaces an integration is provisioned to, with their budgets and rate limits. */
function Provisioning({ integrationId, doc }: { integrationId: string; doc: OpenApi }) {
  const path = `/integrations/${encodeURIComponent(integrationId)}/workspaces`;
  const loaded = useLoad(
    () => Promise.all([admin<List<Record<string, unknown>>>(path), admin<List<{ id: string; name: string }>>("/workspaces")]),
    [integrationId],
  );
  const [error, setError] = useState<unknown>();
  const [target, setTarget] = useState("");
  const schema = bodySchema(doc, "/integrations/{integration_id}/workspaces/{workspace_id}", "put");
  return (
    <div class="provisioning">
      <h3>Provisioning</h3>
      <ErrorBox error={error} />
      <Await loaded={loaded}>
        {([list, workspaces]) => (
          <>
            <ul>
              {list.data.map((p) => (
                <li key={String(p.workspace_id)}>
                  {String(p.workspace_id)} · budget {cell(p.budget)} · rate limit {cell(p.rate_limit)}{" "}
                  <DeleteButton
                    label="Withdraw"
                    what={`from ${String(p.workspace_id)}`}
                    path={`${path}/${encodeURIComponent(String(p.workspace_id))}`}
                    onDeleted={loaded.reload}
                    onError={setError}
                  />
                </li>
              ))}
              {list.data.length === 0 && <li class="muted">Not provisioned to any workspace.</li>}
            </ul>
            <select
              name="provision-workspace"
              aria-label="Workspace to provision"
              value={target}
              onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}
            >
              <option value="">Provision to…</option>
              {workspaces.data.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
            {target && schema && (
              <BodyForm
                key={target}
                schema={schema}
                initial={{}}
                label="Provision"
                submit={(body) => call("PUT", `/admin/v1${path}/${encodeURIComponent(target)}`, { body })}
                onDone={() => {
                  setTarget("");
                  loaded.reload();
                }}
              />
            )}
          </>
        )}
      </Await>
    </div>
  );
}

/** The page of one resource. */
export function ResourcePage({ resource }: { resource: Resource }) {
  const { workspaceId } = useSession();
  const values = { workspace_id: workspaceId ?? "" };
  const listPath = fill(resource.list, values);
  const loaded = useLoad(() => Promise.all([admin<List<Record<string, unknown>>>(listPath), document()]), [listPath]);
  const [mode, setMode] = useState<{ kind: "create" } | { kind: "edit"; record: Record<string, unknown> } | null>(null);
  const [created, setCreated] = useState<string>();
  const [error, setError] = useState<unknown>();
  const itemOf = (record: Record<string, unknown>) =>
    resource.item.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(name === "workspace_id" && resource.workspace ? values.workspace_id : String(record[resource.key])),
    );
  return (
    <section data-resource={resource.path}>
      <PageHead title={resource.title}>
        <button type="button" onClick={() => setMode({ kind: "create" })}>
          New
        </button>
      </PageHead>
      <p class="muted">{resource.intro}</p>
      {created && (
        <div class="secret-once" role="status">
          <p>The new key, shown this once:</p>
          <code data-new-key>{created}</code> <CopyButton text={created} />
        </div>
      )}
      <ErrorBox error={error} />
      <Await loaded={loaded}>
        {([list, doc]) => {
          const createSchema = bodySchema(doc, resource.list, "post");
          const updateSchema = bodySchema(doc, resource.item, "patch");
          return (
            <>
              {mode?.kind === "create" && createSchema && (
                <div class="panel">
                  <h2>New {resource.title.toLowerCase().replace(/s$/, "")}</h2>
                  <BodyForm
                    schema={createSchema}
                    initial={{}}
                    label="Create"
                    submit={(body) => call("POST", `/admin/v1${listPath}`, { body })}
                    onDone={(answer) => {
                      const key = (answer as { key?: unknown }).key;
                      setCreated(typeof key === "string" ? key : undefined);
                      setMode(null);
                      loaded.reload();
                    }}
                  />
                </div>
              )}
              {mode?.kind === "edit" && updateSchema && (
                <div class="panel">
                  <h2>Edit {String(mode.record[resource.key])}</h2>
                  <BodyForm
                    key={String(mode.record[resource.key])}
                    schema={updateSchema}
                    initial={Object.fromEntries(
                      Object.keys(updateSchema.properties ?? {})
                        .filter((name) => name !== "credentials" && mode.record[name] !== undefined && mode.record[name] !== null)
                        .map((name) => [name, mode.record[name]]),
                    )}
                    label="Save"
                    submit={(body) => call("PATCH", `/admin/v1${itemOf(mode.record)}`, { body })}
                    onDone={() => {
                      setMode(null);
                      loaded.reload();
                    }}
                  />
                  {resource.path === "integrations" && <Provisioning integrationId={String(mode.record.id)} doc={doc} />}
                </div>
              )}
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      {resource.columns.map((c) => (
                        <th key={c}>{c}</th>
                      ))}
                      <th />
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.map((record) => (
                      <tr key={String(record[resource.key])} data-key={String(record[resource.key])}>
                        {resource.columns.map((c) => (
                          <td key={c}>{cell(record[c])}</td>
                        ))}
                        <td class="row-actions">
                          {updateSchema && (
                            <button type="button" class="small secondary" onClick={() => setMode({ kind: "edit", record })}>
                              Edit
                            </button>
                          )}
                          <DeleteButton
                            what={String(record[resource.key])}
                            path={itemOf(record)}
                            onDeleted={loaded.reload}
                            onError={setError}
                          />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {list.data.length === 0 && <p class="muted">None yet.</p>}
            </>
          );
        }}
      </Await>
    </section>
  );
}
