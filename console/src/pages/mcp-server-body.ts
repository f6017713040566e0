/**
 * What the MCP server form sends: its fields filled from a record, and the body of a create or of
 * an edit with only the fields that changed, compared as values (a URL or an OAuth setting sent
 * again would mark an operator's server as a workspace admin's). It imports nothing, so Node
 * reads it as the console does.
 */

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
export type AuthChoice = "keep" | McpServerRecord["auth"];

export interface FormState {
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

/** The form's fields for a new server, or filled from `record` (credentials always empty). */
export function stateOf(record: McpServerRecord | undefined): FormState {
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
      // Compared as values: the same setting with its keys in another order is no change (sent
      // again, it would mark an operator's server as a workspace admin's).
      return sameValue(oauth, held) ? {} : { oauth };
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
  const changed = Object.entries(fields).filter(([k, v]) => !sameValue(v, before[k] ?? null));
  return { ...Object.fromEntries(changed), ...auth };
}

/**
 * Whether two JSON values are the same value: objects compare by their keys and values whatever
 * the keys' order (a store may keep them in another order than the form builds them).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && sameValue(left[key], right[key]))
  );
}
