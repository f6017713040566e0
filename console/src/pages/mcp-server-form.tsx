/**
 * The create and edit form of an MCP server (docs/mcp.md, "Servers in the store"). Credentials
 * are write-only: the admin API never returns them, so their fields always start empty and the
 * form says only whether some are held; an edit sends them only when they are replaced or removed,
 * and sends only the fields that changed (a URL sent again would mark an operator's server as a
 * workspace admin's).
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, call } from "../api";
import { ErrorBox } from "../ui";

/** An MCP server as the admin API answers it: never its credentials, only which kind is held. */
export interface McpServerRecord {
  id: string;
  name: string;
  transport: "streamable_http" | "sse";
  url: string;
  answers: "sse" | "json" | null;
  auth: "none" | "headers" | "bearer" | "oauth_client_credentials";
  oauth: {
    token_url: string;
    scope?: string;
    audience?: string;
    token_endpoint_auth_method?: TokenAuthMethod;
  } | null;
  header_names: string[];
  has_credentials: boolean;
  trusted: boolean;
  tools: { allow: "all" | string[]; deny: string[] };
  pinning: "first_use" | "approval" | "off";
  tool_pack: "standard" | null;
}

/** How the client id and secret reach the token endpoint (RFC 8414 names). */
type TokenAuthMethod = "client_secret_basic" | "client_secret_post";

/** How the gateway authenticates to the server; "keep" leaves the held credentials as they are. */
type AuthChoice = "keep" | McpServerRecord["auth"];

interface FormState {
  name: string;
  transport: McpServerRecord["transport"];
  url: string;
  answers: "" | "sse" | "json";
  auth: AuthChoice;
  bearer_token: string;
  headers: string;
  token_url: string;
  scope: string;
  audience: string;
  token_endpoint_auth_method: TokenAuthMethod;
  client_id: string;
  client_secret: string;
  allowAll: boolean;
  allow: string;
  deny: string;
  pinning: McpServerRecord["pinning"];
  tool_pack: "" | "standard";
}

const AUTH_LABELS: Record<McpServerRecord["auth"], string> = {
  none: "None",
  bearer: "Bearer token",
  headers: "Static headers",
  oauth_client_credentials: "OAuth client credentials",
};

function stateOf(record: McpServerRecord | undefined): FormState {
  return {
    name: record?.name ?? "",
    transport: record?.transport ?? "streamable_http",
    url: record?.url ?? "",
    answers: record?.answers ?? "",
    auth: record ? "keep" : "none",
    bearer_token: "",
    headers: "",
    token_url: record?.oauth?.token_url ?? "",
    scope: record?.oauth?.scope ?? "",
    audience: record?.oauth?.audience ?? "",
    token_endpoint_auth_method: record?.oauth?.token_endpoint_auth_method ?? "client_secret_basic",
    client_id: "",
    client_secret: "",
    allowAll: !record || record.tools.allow === "all",
    allow: record && record.tools.allow !== "all" ? record.tools.allow.join(", ") : "",
    deny: record?.tools.deny.join(", ") ?? "",
    pinning: record?.pinning ?? "first_use",
    tool_pack: record?.tool_pack ?? "",
  };
}

/** Names separated by commas or lines. */
function names(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((n) => n.trim())
    .filter(Boolean);
}

/** `name: value` lines as headers; throws on a line without a colon. */
function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error("headers: write one header a line, as name: value");
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function oauthOf(s: FormState): McpServerRecord["oauth"] {
  return {
    token_url: s.token_url.trim(),
    ...(s.scope.trim() && { scope: s.scope.trim() }),
    ...(s.audience.trim() && { audience: s.audience.trim() }),
    token_endpoint_auth_method: s.token_endpoint_auth_method,
  };
}

/** The credentials and OAuth settings the chosen authentication sends; {} when nothing changes. */
function authBody(s: FormState, record: McpServerRecord | undefined): Record<string, unknown> {
  switch (s.auth) {
    case "keep": {
      if (record?.auth !== "oauth_client_credentials") return {};
      const oauth = oauthOf(s);
      // A record without the method uses HTTP Basic: the same setting, not a change.
      const held = {
        ...record.oauth,
        token_endpoint_auth_method: record.oauth?.token_endpoint_auth_method ?? "client_secret_basic",
      };
      return JSON.stringify(oauth) === JSON.stringify(held) ? {} : { oauth };
    }
    case "none":
      return record ? { credentials: null, ...(record.oauth && { oauth: null }) } : {};
    case "bearer":
      if (!s.bearer_token) throw new Error("bearer token: give the token to send");
      return { credentials: { bearer_token: s.bearer_token }, ...(record?.oauth && { oauth: null }) };
    case "headers": {
      const headers = headersOf(s.headers);
      if (!Object.keys(headers).length) throw new Error("headers: give at least one header");
      return { credentials: { headers }, ...(record?.oauth && { oauth: null }) };
    }
    case "oauth_client_credentials":
      if (!s.client_id || !s.client_secret) throw new Error("client credentials: give the client id and the client secret");
      return { oauth: oauthOf(s), credentials: { client_id: s.client_id, client_secret: s.client_secret } };
  }
}

/** The body of a create, or of an edit with only the fields that changed. */
export function bodyOf(s: FormState, record: McpServerRecord | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    transport: s.transport,
    url: s.url.trim(),
    answers: s.answers || null,
    tools: { allow: s.allowAll ? "all" : names(s.allow), deny: names(s.deny) },
    pinning: s.pinning,
    tool_pack: s.tool_pack || null,
  };
  const auth = authBody(s, record);
  if (!record) {
    const created = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
    return { name: s.name.trim(), ...created, ...auth };
  }
  const before = record as unknown as Record<string, unknown>;
  const changed = Object.entries(fields).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k] ?? null));
  return { ...Object.fromEntries(changed), ...auth };
}

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
