/**
 * MCP servers of a workspace (docs/mcp.md): a remote server the gateway serves at
 * `/v1/mcp/{name}`, with the credentials it is reached with sealed at rest and never returned, the
 * workspace's tool controls, how tool definitions are pinned and the tool pack it runs; and the
 * pinned definitions, which an admin lists and approves. Workspace admins manage their workspace's
 * servers; a URL a workspace admin chose obeys the workspace address policy.
 */
import type { SchemaType } from "../schema-types.js";
import { conflict, invalid, notFound } from "../store/errors.js";
import { newId } from "../store/ids.js";
import type { McpCredentials, McpServer, McpServerWithSecret, McpToolPin, Workspace } from "../store/types.js";
import { type Actor, assertSeesWorkspace, requireRole } from "./actor.js";
import type { ManagementContext } from "./context.js";
import { checkUpstreamUrl, upstreamTrusted } from "./integrations.js";
import type { mcpServerCreateSchema, mcpServerUpdateSchema } from "./schemas.js";

/** Body of an MCP server create. */
export type McpServerInput = SchemaType<typeof mcpServerCreateSchema>;

/** Body of an MCP server update. */
export type McpServerPatch = SchemaType<typeof mcpServerUpdateSchema>;

/** The sealing context of a server's credentials: binds the ciphertext to the record. */
function credentialsContext(id: string): string {
  return `mcp_server:${id}`;
}

/** Opens an MCP server's credentials; undefined when it holds none. */
export function openMcpCredentials(ctx: ManagementContext, record: McpServerWithSecret): McpCredentials | undefined {
  if (!record.credentials_sealed) return undefined;
  return JSON.parse(ctx.box.open(record.credentials_sealed, credentialsContext(record.id))) as McpCredentials;
}

/** Which kind of authentication a set of credentials makes, checked against the OAuth settings. */
function authOf(credentials: McpCredentials | undefined, oauth: McpServer["oauth"]): McpServer["auth"] {
  if (credentials?.client_id !== undefined || credentials?.client_secret !== undefined) {
    if (credentials.client_id === undefined || credentials.client_secret === undefined) {
      throw invalid("credentials: the client credentials grant needs both client_id and client_secret");
    }
    if (!oauth) throw invalid("oauth: token_url is needed with client_id and client_secret");
    if (credentials.bearer_token !== undefined) {
      throw invalid("credentials: give a bearer_token or OAuth client credentials, not both");
    }
    return "oauth_client_credentials";
  }
  if (oauth) throw invalid("credentials: oauth needs client_id and client_secret");
  if (credentials?.bearer_token !== undefined) return "bearer";
  if (credentials?.headers && Object.keys(credentials.headers).length) return "headers";
  return "none";
}

export class McpServers {
  constructor(private readonly ctx: ManagementContext) {}

  async #workspace(actor: Actor, workspaceId: string): Promise<Workspace> {
    const workspace = await this.ctx.store.workspaces.get(workspaceId);
    assertSeesWorkspace(actor, workspace, workspaceId);
    return workspace;
  }

  #seal(id: string, credentials: McpCredentials | null | undefined) {
    const held = credentials && Object.keys(credentials).length ? credentials : undefined;
    return {
      credentials_sealed: held ? this.ctx.box.seal(JSON.stringify(held), credentialsContext(id)) : null,
      has_credentials: held !== undefined,
      header_names: Object.keys(held?.headers ?? {}).sort(),
    };
  }

  async create(actor: Actor, workspaceId: string, input: McpServerInput): Promise<McpServer> {
    await this.#workspace(actor, workspaceId);
    requireRole(actor, "workspace_admin", "registering an MCP server");
    checkUpstreamUrl(this.ctx, actor, input.url, "url", "an MCP server");
    const oauth = input.oauth ?? null;
    if (oauth) checkUpstreamUrl(this.ctx, actor, oauth.token_url, "oauth.token_url", "an MCP server's token endpoint");
    const auth = authOf(input.credentials, oauth);
    const id = newId("mcp");
    const now = this.ctx.now();
    const created = await this.ctx.store.mcpServers.create({
      id,
      workspace_id: workspaceId,
      name: input.name,
      transport: input.transport ?? "streamable_http",
      url: input.url,
      answers: input.answers ?? null,
      auth,
      oauth,
      ...this.#seal(id, input.credentials),
      trusted: upstreamTrusted(actor),
      tools: { allow: input.tools?.allow ?? "all", deny: input.tools?.deny ?? [] },
      pinning: input.pinning ?? "first_use",
      tool_pack: input.tool_pack ?? null,
      created_at: now,
      updated_at: now,
    });
    if (!created) throw conflict(`an MCP server named "${input.name}" already exists in workspace ${workspaceId}`);
    return created;
  }

  async get(actor: Actor, workspaceId: string, name: string): Promise<McpServer> {
    await this.#workspace(actor, workspaceId);
    const server = await this.ctx.store.mcpServers.findByName(workspaceId, name);
    if (!server) throw notFound(`MCP server "${name}" in workspace "${workspaceId}"`);
    return server;
  }

  async list(actor: Actor, workspaceId: string): Promise<McpServer[]> {
    await this.#workspace(actor, workspaceId);
    return this.ctx.store.mcpServers.list(workspaceId);
  }

  async update(actor: Actor, workspaceId: string, name: string, patch: McpServerPatch): Promise<McpServer> {
    const server = await this.get(actor, workspaceId, name);
    requireRole(actor, "workspace_admin", "changing an MCP server");
    checkUpstreamUrl(this.ctx, actor, patch.url, "url", "an MCP server");
    const oauth = patch.oauth === undefined ? server.oauth : patch.oauth;
    if (patch.oauth)
      checkUpstreamUrl(this.ctx, actor, patch.oauth.token_url, "oauth.token_url", "an MCP server's token endpoint");
    let credentials: McpCredentials | null | undefined = patch.credentials;
    if (credentials === undefined && patch.oauth !== undefined) {
      const sealed = await this.ctx.store.mcpServers.getWithSecret(workspaceId, name);
      credentials = sealed ? openMcpCredentials(this.ctx, sealed) : undefined;
    }
    const { credentials: _given, tools, ...rest } = patch;
    const updated = await this.ctx.store.mcpServers.update(
      server.id,
      {
        ...rest,
        ...(tools && { tools: { allow: tools.allow ?? "all", deny: tools.deny ?? [] } }),
        ...((patch.url !== undefined || patch.oauth !== undefined) && !upstreamTrusted(actor) && { trusted: false }),
        ...(credentials !== undefined || patch.oauth !== undefined
          ? {
              auth: authOf(credentials ?? undefined, oauth),
              ...(credentials !== undefined && this.#seal(server.id, credentials)),
            }
          : {}),
      },
      this.ctx.now(),
    );
    if (!updated) throw notFound(`MCP server "${name}" in workspace "${workspaceId}"`);
    return updated;
  }

  async delete(actor: Actor, workspaceId: string, name: string): Promise<void> {
    const server = await this.get(actor, workspaceId, name);
    requireRole(actor, "workspace_admin", "deleting an MCP server");
    await this.ctx.store.mcpServers.delete(server.id);
  }

  /** The pinned tool definitions of a server, the withheld ones flagged (`changed`, `unapproved`). */
  async pins(actor: Actor, workspaceId: string, name: string): Promise<McpToolPin[]> {
    await this.get(actor, workspaceId, name);
    return this.ctx.store.mcpToolPins.list(workspaceId, name);
  }

  /**
   * Approves the definition a tool is withheld for, which becomes its pin; with `hash`, only if
   * that is still the definition awaiting approval (the server may have changed it again since).
   */
  async approve(actor: Actor, workspaceId: string, name: string, tool: string, hash?: string): Promise<McpToolPin> {
    await this.get(actor, workspaceId, name);
    requireRole(actor, "workspace_admin", "approving a tool definition");
    const pin = await this.ctx.store.mcpToolPins.get(workspaceId, name, tool);
    if (!pin) throw notFound(`tool "${tool}" of MCP server "${name}" (it has not been listed yet)`);
    if (pin.pending_hash === null) {
      if (hash === undefined || hash === pin.hash) return pin;
      throw conflict(`tool "${tool}" awaits no approval; its pinned definition is ${pin.hash}`, "version_conflict");
    }
    if (hash !== undefined && hash !== pin.pending_hash) {
      throw conflict(
        `tool "${tool}" now awaits approval of ${pin.pending_hash}, not ${hash}; review it again`,
        "version_conflict",
      );
    }
    return this.ctx.store.mcpToolPins.put({
      ...pin,
      status: "pinned",
      hash: pin.pending_hash,
      definition: pin.pending_definition,
      pending_hash: null,
      pending_definition: null,
      flagged_at: null,
      updated_at: this.ctx.now(),
    });
  }
}
