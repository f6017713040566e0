/**
 * The store's MCP servers and pinned tool definitions as the MCP gateway reads them: a server of
 * the caller's workspace with its credentials opened (an OAuth client's token fetched, cached and
 * renewed before it expires), and the pins the tool guard reads and writes.
 */
import { OutboundError, outboundRequest } from "../../core/index.js";
import { TokenCache } from "../../core/internal.js";
import { GatewayError } from "../errors.js";
import type { McpServerRecord, SeenToolDefinition, ToolPinSource, ToolPinState } from "../sources/types.js";
import type { McpCredentials, McpServerWithSecret, McpToolPin } from "../store/types.js";
import type { ManagementContext } from "./context.js";
import { openMcpCredentials } from "./mcp-servers.js";

/** Renew this long before a token expires, so a call never goes out with one about to lapse. */
const RENEW_EARLY_MS = 60_000;
/** An OAuth token answer is small; a bigger one is refused. */
const TOKEN_ANSWER_MAX_BYTES = 64 * 1024;

const tokens = new TokenCache(1_000);

/** Fetches an access token by the client credentials grant (RFC 6749 §4.4). */
async function clientCredentialsToken(
  ctx: ManagementContext,
  record: McpServerWithSecret,
  credentials: McpCredentials,
): Promise<{ token: string; renewAt: number }> {
  const oauth = record.oauth!;
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (oauth.scope) form.set("scope", oauth.scope);
  if (oauth.audience) form.set("audience", oauth.audience);
  // RFC 6749 §2.3.1: one method a request, either the form fields or HTTP Basic (each part
  // form-encoded first).
  let authorization: Record<string, string> = {};
  if (oauth.token_endpoint_auth_method === "client_secret_post") {
    form.set("client_id", credentials.client_id!);
    form.set("client_secret", credentials.client_secret!);
  } else {
    const basic = Buffer.from(
      `${encodeURIComponent(credentials.client_id!)}:${encodeURIComponent(credentials.client_secret!)}`,
    ).toString("base64");
    authorization = { authorization: `Basic ${basic}` };
  }
  // The token is the server's credential: a failure to get one is the server failing (502), and
  // says why without quoting the answer (a token endpoint may echo what it was sent).
  const failed = (why: string, cause?: unknown) =>
    new GatewayError(
      "mcp_upstream_failed",
      `MCP server "${record.name}": no access token from its token endpoint: ${why}`,
      cause === undefined ? undefined : { cause },
    );
  let answer: Awaited<ReturnType<typeof outboundRequest>>;
  try {
    answer = await outboundRequest(oauth.token_url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        ...authorization,
      },
      body: form.toString(),
      timeout: 10_000,
      maxResponseBytes: TOKEN_ANSWER_MAX_BYTES,
      // A workspace admin's token endpoint obeys the workspace address policy; the operator's may
      // be private (loopback included), as the operator's server itself may.
      settings: {
        allowPrivateAddresses: record.trusted || ctx.workspaceAddressPolicy.allowPrivate,
        allowLoopback: ctx.workspaceAddressPolicy.allowLoopback,
      },
    });
  } catch (error) {
    // An OutboundError's message names the method and the URL without its query, never a header.
    throw failed(error instanceof OutboundError ? error.message : "the call failed", error);
  }
  let body: { access_token?: unknown; expires_in?: unknown } = {};
  try {
    body = JSON.parse(answer.body.toString("utf8")) as typeof body;
  } catch {
    // Judged below: no token.
  }
  if (answer.status !== 200 || typeof body.access_token !== "string" || body.access_token === "") {
    throw failed(`it answered ${answer.status} without an access token`);
  }
  // RFC 6749 says a number; some endpoints send it as a numeric string.
  const seconds = Number(body.expires_in);
  const lifetime = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 3_600_000;
  return { token: body.access_token, renewAt: Date.now() + Math.max(lifetime - RENEW_EARLY_MS, lifetime / 2) };
}

/** The store's MCP servers for the gateway (McpServerSource); a workspace sees its own only. */
export class StoreMcpServerSource {
  constructor(private readonly ctx: ManagementContext) {}

  async get(name: string, scope?: { workspaceId?: string }): Promise<McpServerRecord | undefined> {
    if (scope?.workspaceId === undefined) return undefined;
    const record = await this.ctx.store.mcpServers.getWithSecret(scope.workspaceId, name);
    if (!record) return undefined;
    const credentials = openMcpCredentials(this.ctx, record);
    let bearerToken = credentials?.bearer_token;
    if (record.auth === "oauth_client_credentials" && credentials) {
      bearerToken = await tokens.get(`${record.id}\0${record.updated_at}`, () =>
        clientCredentialsToken(this.ctx, record, credentials),
      );
    }
    return {
      name: record.name,
      transport: record.transport,
      url: record.url,
      workspaceId: record.workspace_id,
      trusted: record.trusted,
      ...(record.answers && { answers: record.answers }),
      ...(credentials?.headers && { headers: credentials.headers }),
      ...(bearerToken !== undefined && { bearerToken }),
      tools: record.tools as McpServerRecord["tools"] & object,
      pinning: record.pinning,
      ...(record.tool_pack === "standard" && { toolPack: "standard" as const }),
    };
  }
}

/** The store's pinned tool definitions for the tool guard. */
export class StoreToolPins implements ToolPinSource {
  constructor(private readonly ctx: ManagementContext) {}

  async list(workspaceId: string, server: string): Promise<ToolPinState[]> {
    return (await this.ctx.store.mcpToolPins.list(workspaceId, server)).map(({ tool, status, hash, pending_hash }) => ({
      tool,
      status,
      hash,
      pending_hash,
    }));
  }

  async pinNew(workspaceId: string, server: string, seen: SeenToolDefinition[], status: "pinned" | "unapproved"): Promise<void> {
    const now = this.ctx.now();
    const pins: McpToolPin[] = seen.map(({ tool, hash, definition }) => ({
      workspace_id: workspaceId,
      server,
      tool,
      status,
      hash: status === "pinned" ? hash : null,
      definition: status === "pinned" ? definition : null,
      pending_hash: status === "pinned" ? null : hash,
      pending_definition: status === "pinned" ? null : definition,
      flagged_at: status === "pinned" ? null : now,
      created_at: now,
      updated_at: now,
    }));
    await this.ctx.store.mcpToolPins.insertMissing(pins);
  }

  async flag(workspaceId: string, server: string, seen: SeenToolDefinition): Promise<void> {
    const pin = await this.ctx.store.mcpToolPins.get(workspaceId, server, seen.tool);
    if (!pin || pin.hash === seen.hash || pin.pending_hash === seen.hash) return;
    const now = this.ctx.now();
    await this.ctx.store.mcpToolPins.put({
      ...pin,
      status: pin.hash === null ? "unapproved" : "changed",
      pending_hash: seen.hash,
      pending_definition: seen.definition,
      flagged_at: now,
      updated_at: now,
    });
  }
}
