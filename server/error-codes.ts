/**
 * Every error code the server answers with or raises, one table per layer: the inference and hook
 * routes (GatewayError), the admin API and the management rules (ManagementError), and the store
 * (StoreError). Each error class takes its code from its table's keys, so a code cannot be used
 * without being listed here, and its HTTP status from the code's line, so a throw names only the
 * code and the message; `npm run docs:checks` writes these tables to docs/errors.md.
 */
import type { ConfigErrorCode } from "../core/index.js";

/** One code: the HTTP status it answers with, where it has one, and what it means. */
export interface ErrorCodeInfo {
  /**
   * The status every answer with this code has. Absent where the code is not an HTTP answer of its
   * own (a store that cannot open stops the start, or is a 500); the error classes accept only
   * codes that have one (CodeWithStatus).
   */
  status?: number;
  /**
   * The error envelope's `type`, where the code fixes it. Elsewhere the type follows from the
   * status, in each format's own words (402 is OpenAI's insufficient_quota, Anthropic's
   * billing_error: server/formats/).
   */
  type?: string;
  meaning: string;
}

/**
 * The codes of `table` that have a status, or only those whose status is `S`: the codes an error
 * class can be thrown with, its status read from the table.
 */
export type CodeWithStatus<T, S extends number = number> = {
  [K in keyof T]: T[K] extends { readonly status: S } ? K : never;
}[keyof T] &
  string;

/**
 * The status of a config or guardrail the engine refuses (core's CONFIG_ERRORS, thrown as
 * ConfigError or carried by a GatewayError or ManagementError), on the gateway and the admin API
 * alike.
 */
export const CONFIG_ERROR_STATUS = 400;

/** Codes of the `/v1` routes: the error envelope's `code` (`error.code`) and the request log's `error_code`. */
export const GATEWAY_ERRORS = {
  invalid_request: {
    status: 400,
    meaning:
      "the body lacks its route's shape, or a hook call gives neither or both of guardrails and config; the message names the field",
  },
  invalid_json: { status: 400, meaning: "the body is not valid JSON, or is empty" },
  invalid_content_length: { status: 400, meaning: "the content-length header does not match the body" },
  body_too_deep: { status: 400, meaning: "the body is nested deeper than 64 levels; refused from its text, before it is parsed" },
  config_malformed: { status: 400, meaning: "x-gateway-config is neither a saved config id nor a JSON object" },
  invalid_header: {
    status: 400,
    meaning: "a gateway header has a value it does not accept (x-gateway-strict-compliance other than true/false, …)",
  },
  invalid_metadata: { status: 400, meaning: "x-gateway-metadata is not a JSON object of strings" },
  invalid_model: { status: 400, meaning: "the body's model is not a string, or an @slug/model without a model" },
  invalid_request_type: {
    status: 400,
    meaning: "a hook call names a request type other than chatComplete, complete, embed, messages, responses",
  },
  stream_not_checkable: {
    status: 400,
    meaning:
      "a streamed Anthropic request with tools under an output guardrail that redacts tool input, which a streamed tool_use block cannot carry; the message names the guardrail",
  },
  input_not_checkable: {
    status: 400,
    meaning:
      "a completions prompt or embeddings input given as token ids under an input guardrail or policy whose checks read text, which cannot read token ids; the message names the guardrails",
  },
  invalid_custom_host: { status: 400, meaning: "a custom host is not an http(s) URL" },
  not_found: { status: 404, meaning: "no route of the gateway has this method and path" },
  response_not_found: {
    status: 404,
    meaning:
      "previous_response_id or /v1/responses/{id} names a response this workspace has not stored (none kept with store: false, or where bodies are not kept)",
  },
  // The MCP gateway (server/mcp/, docs/mcp.md): answered as JSON-RPC errors, the code in `error.data.code`.
  mcp_invalid_message: {
    status: 400,
    meaning: "an MCP request's body is not a JSON-RPC 2.0 message (or batch) the transport takes; the message says what is wrong",
  },
  mcp_unsupported_version: {
    status: 400,
    meaning: "MCP-Protocol-Version names a revision the gateway does not speak; the message lists those it does",
  },
  mcp_session_required: {
    status: 400,
    meaning: "an MCP request of a revision with sessions came without Mcp-Session-Id and is not an initialize",
  },
  mcp_server_not_found: {
    status: 404,
    meaning: "no MCP server of this name is registered for the key's workspace (another workspace's is not told apart)",
  },
  mcp_session_not_found: {
    status: 404,
    meaning: "Mcp-Session-Id names no open session of this server and key (closed, expired, or never opened); initialize again",
  },
  mcp_method_not_found: {
    status: 404,
    meaning:
      "a stateless (2026-07-28) MCP request names an RPC that revision removed (initialize, ping, logging/setLevel, resources/subscribe, resources/unsubscribe)",
  },
  mcp_method_not_allowed: {
    status: 405,
    meaning: "a GET or DELETE to an MCP server without a session (revision 2026-07-28 has neither)",
  },
  mcp_not_acceptable: {
    status: 406,
    meaning: "an MCP request's Accept header takes neither application/json nor text/event-stream",
  },
  mcp_too_many_sessions: {
    status: 429,
    meaning: "the gateway holds as many MCP sessions as it allows; close one with DELETE or retry later",
  },
  mcp_upstream_failed: {
    status: 502,
    meaning:
      "the MCP server could not be reached, failed to initialize, or chose a revision the gateway does not speak, or its OAuth token endpoint gave no access token; never with the server's credentials",
  },
  custom_host_refused: { status: 400, meaning: "a custom host resolves to a private, link-local or metadata address" },
  custom_host_with_slug: {
    status: 400,
    meaning: "a custom host was combined with a provider slug, whose key goes to its own base URL only",
  },
  no_provider: { status: 400, meaning: "neither the model, the config nor a header names a provider" },
  unknown_provider_name: { status: 400, meaning: "a provider name that is not in the catalog" },
  provider_format_mismatch: {
    status: 400,
    meaning:
      "the provider cannot serve the route, in its own format or translated (/v1/completions to an Anthropic or Bedrock provider, …)",
  },
  unsupported_parameter: {
    status: 400,
    meaning:
      "the request has a parameter its provider cannot honour once translated to the provider's format; the message names it (config drop_params: true drops such parameters instead)",
  },
  provider_not_configured: {
    status: 400,
    meaning:
      "the provider lacks a setting it cannot be called without (Amazon Bedrock: no AWS credentials or region in its options, the gateway's environment or the shared AWS files; Azure OpenAI: no resource_name or base_url; the Gemini API: no API key; Vertex AI: no service account or project), or a config sets one only a provider record may; the message names it",
  },
  // Amazon Bedrock (server/providers/kinds/bedrock).
  unsupported_content: {
    status: 400,
    meaning:
      "a message part, role or input the provider cannot take (an image by URL to Amazon Bedrock, which takes bytes, or to Gemini, which fetches no client URL; token arrays to Bedrock or Google embeddings); the message names it",
  },
  custom_host_needs_credentials: {
    status: 400,
    meaning:
      "a custom host was given to a provider that would sign with the gateway's own credentials (Amazon Bedrock's environment or shared AWS files); give the credentials in the config, or define the provider with its base_url",
  },
  upstream_stream_error: {
    status: 502,
    meaning:
      "the provider's stream reported an error part way (an error event in a translated Anthropic, OpenAI-format or Gemini stream, Amazon Bedrock's exception events: throttlingException, modelStreamErrorException, …); the stream's error event names it",
  },
  provider_blocked_prompt: {
    status: 400,
    meaning:
      "the provider's own safety filter blocked the prompt and answered nothing (Gemini promptFeedback.blockReason); the message names the reason, the log's provider_filters keep the details",
  },
  model_price_unknown: { status: 400, meaning: "a budget applies, but the model has no price to count its spend with" },
  model_not_allowed: { status: 403, meaning: "the model is outside the provider's allow-list" },
  missing_api_key: { status: 401, meaning: "no x-gateway-api-key header" },
  invalid_api_key: { status: 401, meaning: "the API key is not known" },
  admin_key_not_for_models: {
    status: 403,
    meaning:
      "an organization admin key was used on a /v1 route; admin keys cannot call models (hooks take one with x-gateway-workspace)",
  },
  workspace_not_in_organization: {
    status: 403,
    meaning: "an organization admin key named, in x-gateway-workspace, a workspace that is not its organization's",
  },
  workspace_not_of_key: {
    status: 403,
    meaning:
      "a workspace's API key named another workspace in x-gateway-workspace; a workspace key acts in its own workspace only",
  },
  plan_forbids_check: { status: 403, meaning: "a guardrail uses a check class the organization's plan does not include" },
  guardrails_disabled: { status: 403, meaning: "the organization has guardrails turned off" },
  invalid_feedback: {
    status: 400,
    meaning:
      "a feedback body breaks its shape (value an integer from -10 to 10, weight 0 to 1, metadata of strings); the message names the field",
  },
  unknown_trace: { status: 404, meaning: "feedback names a trace_id the workspace has no request for" },
  unknown_feedback: { status: 404, meaning: "PUT /v1/feedback/:id names no feedback of the workspace" },
  feedback_limit_reached: {
    status: 409,
    meaning: "the answer already holds the most feedback entries one answer may (100); change one with PUT instead",
  },
  unknown_config: { status: 404, meaning: "x-gateway-config names no saved config" },
  unknown_provider: { status: 404, meaning: "an @slug names no provider of the workspace" },
  body_too_large: { status: 413, meaning: "the body is larger than body_limit" },
  unsupported_media_type: { status: 415, meaning: "the body is not sent as application/json" },
  budget_exhausted: { status: 402, meaning: "a budget is spent (OpenAI type insufficient_quota)" },
  rate_limit_exceeded: { status: 429, meaning: "a rate limit is reached; retry-after says when to try again" },
  too_many_failed_keys: {
    status: 429,
    meaning: "the address sent too many unknown API keys; retry-after says when its keys are looked at again",
  },
  client_closed: { status: 499, meaning: "the client left before the answer (request log only)" },
  internal_error: { status: 500, meaning: "a bug in guardgate; the details are in its log, never in the answer" },
  upstream_unreachable: { status: 502, meaning: "the provider could not be reached, or its stream broke" },
  upstream_stream_incomplete: {
    status: 502,
    meaning: "the provider's stream ended without its terminal event ([DONE], message_stop) or in the middle of an event",
  },
  provider_auth_failed: {
    status: 502,
    meaning:
      "the gateway could not obtain a token for the provider (Microsoft Entra ID refused the application or could not be reached; Google's token endpoint refused a Vertex AI service account's signed JWT, or could not be reached or read); the message says why, never a secret",
  },
  upstream_invalid_response: { status: 502, meaning: "the provider answered with a body that is not a JSON object" },
  upstream_response_too_large: { status: 502, meaning: "the provider's answer is larger than the gateway accepts" },
  stream_too_large: {
    status: 502,
    meaning: "a stream read by output guardrails (held in window or buffer mode, or gathered for after mode) grew past 32 MiB",
  },
  stream_check_budget_exceeded: {
    status: 502,
    meaning: "a stream held for output guardrails used more check time than settings.stream_check_budget_ms allows",
  },
  stream_broken: {
    status: 502,
    meaning: "the provider's stream broke off before its end (in the stream's error event and the log)",
  },
  hooks_failed: {
    status: 446,
    type: "hooks_failed",
    meaning: "an output guardrail stopped a stream after text went out (the stream's error event; a 446 answer has code null)",
  },
  stream_redaction_conflict: {
    status: 446,
    type: "hooks_failed",
    meaning:
      "a redaction would change streamed text already sent, or text of several choices or tool calls interleaved, so the stream stops instead",
  },
  limits_unavailable: { status: 503, meaning: "Redis is down and limits are set to fail closed" },
  policy_unavailable: {
    status: 503,
    meaning: "a policy holding the request has a guardrail that no longer loads (a plugin removed since); an admin must fix it",
  },
  upstream_timeout: { status: 504, meaning: "the provider did not start answering, or fell silent, within request_timeout" },
  upstream_stream_stalled: {
    status: 504,
    meaning: "the provider's stream completed no event within settings.stream_event_timeout, though bytes kept coming",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** Codes of the admin API (`/admin/v1`) and of the CLI commands over the store. */
export const MANAGEMENT_ERRORS = {
  invalid_request: { status: 400, meaning: "the body or query breaks the route's schema; the message names the field" },
  invalid_cursor: { status: 400, meaning: "a log listing's cursor is not one the API gave" },
  invalid_label_rule: {
    status: 400,
    meaning: "a dataset's label rule does not parse; the message gives the character where it went wrong",
  },
  workspace_required: {
    status: 400,
    meaning: "an organization-wide key must name the workspace (x-gateway-workspace or ?workspace_id)",
  },
  limit_not_stricter: { status: 400, meaning: "a workspace's limit is looser than its integration's" },
  model_not_allowed: { status: 400, meaning: "a provider's allowed models are not within its integration's" },
  not_provisioned: { status: 400, meaning: "a provider names an integration not provisioned to its workspace" },
  unknown_plugin: { status: 400, meaning: "plugin credentials name a plugin that is not loaded" },
  unknown_provider: { status: 400, meaning: "an integration names a provider that is not in the catalog" },
  duplicate_guardrail: { status: 400, meaning: "a policy lists the same guardrail twice on one side" },
  redacted_credential: { status: 400, meaning: 'a saved record sends back a masked credential ("…") instead of the secret' },
  reload_refused: {
    status: 400,
    meaning:
      "the config file was refused on reload (unreadable, invalid, or a record breaks a rule): the message names the file and the record; nothing changed",
  },
  missing_api_key: { status: 401, meaning: "no x-gateway-api-key header" },
  invalid_api_key: { status: 401, meaning: "the API key is not known" },
  too_many_failed_keys: {
    status: 429,
    meaning: "the address sent too many unknown API keys (the console's sign-in too); retry-after says when to try again",
  },
  forbidden: { status: 403, meaning: "the caller may not do this" },
  role_forbidden: {
    status: 403,
    meaning: "the key's role does not allow this (members cannot manage, workspace admins only their workspace)",
  },
  operator_only: { status: 403, meaning: "only the operator (the CLI on the store) may do this" },
  plan_forbids_check: { status: 403, meaning: "a guardrail uses a check class the organization's plan does not include" },
  guardrails_disabled: { status: 403, meaning: "the organization has guardrails turned off" },
  workspace_integrations_disabled: {
    status: 403,
    meaning: "the organization does not let workspaces hold their own integrations",
  },
  address_not_allowed: {
    status: 403,
    meaning: "an integration's base URL points at a private address the settings do not allow",
  },
  not_found: { status: 404, meaning: "the record does not exist, or the caller may not see it (the two are not told apart)" },
  conflict: { status: 409, meaning: "a record with this id or slug exists" },
  version_conflict: { status: 409, meaning: "the record changed since the version the caller read (If-Match)" },
  guardrail_in_use: { status: 409, meaning: "a saved config still names the guardrail" },
  breaks_config: { status: 409, meaning: "the change would make a saved config invalid" },
  no_config_file: { status: 409, meaning: "a reload was asked of a gateway started without --config: there is no file to read" },
  file_managed: {
    status: 409,
    meaning:
      "the record is seeded from the gateway's config file, which the next reload applies again: edit the file (the message names it), or set settings.file_records_editable",
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/**
 * Codes of the store: raised when it opens or cannot keep a record (the server refuses to start, or
 * answers 500), or, with its status, when its server cannot be reached.
 */
export const STORE_ERRORS = {
  store_unavailable: {
    status: 503,
    meaning:
      "the store's server (Postgres) cannot be reached: down, restarting or refusing connections; retry-after says when to try again",
  },
  store_busy: {
    status: 503,
    meaning:
      "the store's SQLite file stayed locked by another connection (another process, the CLI) for the whole lock wait; retry-after says when to try again",
  },
  store_open_failed: { meaning: "the store's file or server cannot be opened" },
  store_too_new: { meaning: "the store was written by a newer guardgate (its schema version is ahead)" },
  store_url_invalid: { meaning: "--store or store.url is not a sqlite path or postgres:// URL" },
  store_empty: { meaning: "a command needs an organization and the store has none yet (start guardgate serve once)" },
  store_missing: {
    meaning: "a CLI command found no store in the data folder it looked in (it never creates one; guardgate serve does)",
  },
  secret_key_invalid: { meaning: "GUARDGATE_SECRET_KEY is not 32 bytes in hex or base64" },
  secret_key_mismatch: { meaning: "the secret key cannot open credentials sealed under another key" },
  secret_key_unreadable: { meaning: "the secret key file cannot be read" },
  secret_key_unwritable: { meaning: "the secret key file cannot be created" },
  secret_unreadable: { meaning: "a sealed credential is corrupt" },
  key_elsewhere: { meaning: "the config file declares an API key that belongs to another workspace in the store" },
  workspace_elsewhere: { meaning: "the config file names a workspace of another organization" },
  policy_elsewhere: { meaning: "the config file declares a policy whose id another owner (organization or workspace) holds" },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of the `/v1` routes. */
export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;
/** A code of the admin API. */
export type ManagementErrorCode = keyof typeof MANAGEMENT_ERRORS;
/** A code of the store. */
export type StoreErrorCode = keyof typeof STORE_ERRORS;

/** A gateway code with its status in the table: what GatewayError, GateRefusal and LimitError are thrown with. */
export type GatewayStatusCode = CodeWithStatus<typeof GATEWAY_ERRORS>;
/** A management code with its status in the table: what ManagementError is thrown with. */
export type ManagementStatusCode = CodeWithStatus<typeof MANAGEMENT_ERRORS>;

/**
 * The status a GatewayError (GateRefusal, LimitError) answers with: its code's line in
 * GATEWAY_ERRORS, or 400 for a config code the engine refused.
 */
export function gatewayStatus(code: GatewayStatusCode | ConfigErrorCode): number {
  return Object.hasOwn(GATEWAY_ERRORS, code) ? GATEWAY_ERRORS[code as GatewayStatusCode].status : CONFIG_ERROR_STATUS;
}

/** The status a ManagementError answers with: its code's line in MANAGEMENT_ERRORS, or 400 for a config code. */
export function managementStatus(code: ManagementStatusCode | ConfigErrorCode): number {
  return Object.hasOwn(MANAGEMENT_ERRORS, code) ? MANAGEMENT_ERRORS[code as ManagementStatusCode].status : CONFIG_ERROR_STATUS;
}

/** The gateway code of the same name as `code`, when the table has one. */
export function gatewayCode(code: string): GatewayErrorCode | undefined {
  return Object.hasOwn(GATEWAY_ERRORS, code) ? (code as GatewayErrorCode) : undefined;
}
