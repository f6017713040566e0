/**
 * The create and edit form of an MCP server (docs/mcp.md, "Servers in the store"). Credentials
 * are write-only: the admin API never returns them, so their fields always start empty and the
 * form says only whether some are held; an edit sends them only when they are replaced or removed,
 * and sends only the fields that changed (mcp-server-body.ts).
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, call } from "../api";
import { ErrorBox } from "../ui";
import { type AuthChoice, bodyOf, type FormState, type McpServerRecord, stateOf } from "./mcp-server-body";

const AUTH_LABELS: Record<McpServerRecord["auth"], string> = {
  none: "None",
  bearer: "Bearer token",
  headers: "Static headers",
  oauth_client_credentials: "OAuth client credentials",
};

function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span class="name">{label}</span>
      {hint && <span class="hint">{hint}</span>}
      {children}
    </label>
  );
}

/** A secret's input: empty at start, never filled from the API, not kept by the browser. */
function Secret({ name, value, onInput }: { name: string; value: string; onInput(value: string): void }) {
  return (
    <input
      type="password"
      name={name}
      autocomplete="new-password"
      value={value}
      onInput={(e) => onInput((e.target as HTMLInputElement).value)}
    />
  );
}

/** What credentials a server holds, without them. */
export function heldCredentials(record: McpServerRecord): string {
  if (!record.has_credentials) return "none";
  const kind = AUTH_LABELS[record.auth].toLowerCase();
  return record.header_names.length ? `${kind} set (${record.header_names.join(", ")})` : `${kind} set`;
}

/** The form: creates a server when `record` is undefined, else edits it. */
export function McpServerForm({
  workspaceId,
  record,
  onDone,
}: {
  workspaceId: string;
  record?: McpServerRecord;
  onDone(): void;
}) {
  const [s, setS] = useState<FormState>(() => stateOf(record));
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setS((old) => ({ ...old, [key]: value }));
  const text = (key: keyof FormState) => ({
    name: key,
    value: s[key] as string,
    onInput: (e: Event) => set(key, (e.target as HTMLInputElement).value as never),
  });
  const base = `/admin/v1/workspaces/${encodeURIComponent(workspaceId)}/mcp-servers`;
  const showOauth = s.auth === "oauth_client_credentials" || (s.auth === "keep" && record?.auth === "oauth_client_credentials");
  return (
    <form
      class="panel mcp-server-form"
      onSubmit={async (e) => {
        e.preventDefault();
        setFailure(undefined);
        setBusy(true);
        try {
          const body = bodyOf(s, record);
          if (record) await call("PATCH", `${base}/${encodeURIComponent(record.name)}`, { body });
          else await call("POST", base, { body });
          onDone();
        } catch (error) {
          setFailure(error instanceof ApiError || error instanceof Error ? error : new Error(String(error)));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>{record ? `Edit ${record.name}` : "New MCP server"}</h2>
      <div class="fields">
        {!record && (
          <Field label="Name" hint="Clients reach it at /v1/mcp/{name}.">
            <input type="text" required {...text("name")} />
          </Field>
        )}
        <Field label="Transport" hint="Local stdio servers come from the config file only.">
          <select {...text("transport")}>
            <option value="streamable_http">Streamable HTTP</option>
            <option value="sse">HTTP+SSE (older)</option>
          </select>
        </Field>
        <Field label="URL">
          <input type="text" required placeholder="https://tools.example.com/mcp" {...text("url")} />
        </Field>
        <Field label="Answers" hint="How a session's requests are answered: SSE carries progress.">
          <select {...text("answers")}>
            <option value="">default (SSE)</option>
            <option value="sse">SSE</option>
            <option value="json">JSON</option>
          </select>
        </Field>
        <Field
          label="Authentication"
          hint={
            record
              ? `Held now: ${heldCredentials(record)}. Credentials are never shown; give new ones to replace them.`
              : "Sealed at rest; never shown again."
          }
        >
          <select name="auth" value={s.auth} onChange={(e) => set("auth", (e.target as HTMLSelectElement).value as AuthChoice)}>
            {record && <option value="keep">Keep as they are</option>}
            {Object.entries(AUTH_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {record && value === "none" ? "None (remove them)" : label}
              </option>
            ))}
          </select>
        </Field>
        {s.auth === "bearer" && (
          <Field label="Bearer token">
            <Secret name="bearer_token" value={s.bearer_token} onInput={(v) => set("bearer_token", v)} />
          </Field>
        )}
        {s.auth === "headers" && (
          <Field label="Headers" hint="One a line, as name: value; every value is held as a secret.">
            <textarea
              name="headers"
              rows={3}
              autocomplete="off"
              value={s.headers}
              onInput={(e) => set("headers", (e.target as HTMLTextAreaElement).value)}
            />
          </Field>
        )}
        {showOauth && (
          <>
            <Field label="Token URL">
              <input type="text" {...text("token_url")} />
            </Field>
            <Field label="Scope">
              <input type="text" {...text("scope")} />
            </Field>
            <Field label="Audience">
              <input type="text" {...text("audience")} />
            </Field>
            <Field label="Client authentication" hint="How the client id and secret reach the token endpoint.">
              <select {...text("token_endpoint_auth_method")}>
                <option value="client_secret_basic">HTTP Basic (client_secret_basic)</option>
                <option value="client_secret_post">form fields (client_secret_post)</option>
              </select>
            </Field>
          </>
        )}
        {s.auth === "oauth_client_credentials" && (
          <>
            <Field label="Client id">
              <Secret name="client_id" value={s.client_id} onInput={(v) => set("client_id", v)} />
            </Field>
            <Field label="Client secret">
              <Secret name="client_secret" value={s.client_secret} onInput={(v) => set("client_secret", v)} />
            </Field>
          </>
        )}
        <Field label="Allowed tools">
          <span class="row">
            <label>
              <input
                type="checkbox"
                name="allow_all"
                checked={s.allowAll}
                onChange={(e) => set("allowAll", (e.target as HTMLInputElement).checked)}
              />{" "}
              every tool
            </label>
          </span>
          {!s.allowAll && <input type="text" placeholder="read_*, search" {...text("allow")} />}
        </Field>
        <Field label="Denied tools" hint="Refused even when allowed; * stands for any run of characters.">
          <input type="text" placeholder="delete_*" {...text("deny")} />
        </Field>
        <Field label="Pinning" hint="How tool definitions are pinned (a changed one is withheld until approved).">
          <select {...text("pinning")}>
            <option value="first_use">first use</option>
            <option value="approval">approval</option>
            <option value="off">off</option>
          </select>
        </Field>
        <Field label="Tool pack">
          <select {...text("tool_pack")}>
            <option value="">none</option>
            <option value="standard">standard</option>
          </select>
        </Field>
      </div>
      <div class="row">
        <button type="submit" disabled={busy}>
          {record ? "Save" : "Create"}
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ErrorBox error={failure} />
    </form>
  );
}
