/**
 * MCP server routes (docs/mcp.md): a workspace's servers, their credentials never returned, and
 * their pinned tool definitions, which an admin lists and approves.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import type { McpServerInput, McpServerPatch } from "../../management/mcp-servers.js";
import { mcpServerCreateSchema, mcpServerUpdateSchema } from "../../management/schemas.js";
import { mcpServerSchema, mcpToolPinSchema } from "../../store/schemas.js";
import { actorOf } from "../auth.js";
import { listOf } from "../schemas.js";
import { body, params, route } from "./route.js";

const id = { type: "string" };

const approveBody = {
  type: "object",
  properties: {
    hash: {
      type: "string",
      description: "The definition reviewed (`pending_hash`); refused with 409 when the server changed it since.",
    },
  },
  additionalProperties: false,
} as const;

export function mcpServerRoutes(scope: FastifyInstance, management: Management): void {
  const base = "/workspaces/:workspace_id/mcp-servers";
  route(scope, {
    method: "GET",
    url: base,
    summary: "A workspace's MCP servers (credentials are never returned)",
    tag: "mcp",
    params: { workspace_id: id },
    response: [200, listOf(mcpServerSchema)],
    handler: async (request) => ({ data: await management.mcpServers.list(actorOf(request), params(request).workspace_id!) }),
  });
  route(scope, {
    method: "POST",
    url: base,
    summary: "Register an MCP server, served at /v1/mcp/{name} to the workspace's keys",
    tag: "mcp",
    params: { workspace_id: id },
    body: mcpServerCreateSchema,
    response: [201, mcpServerSchema],
    handler: (request) =>
      management.mcpServers.create(actorOf(request), params(request).workspace_id!, body<McpServerInput>(request)),
  });
  route(scope, {
    method: "GET",
    url: `${base}/:name`,
    summary: "An MCP server by name",
    tag: "mcp",
    params: { workspace_id: id, name: id },
    response: [200, mcpServerSchema],
    handler: (request) => {
      const p = params(request);
      return management.mcpServers.get(actorOf(request), p.workspace_id!, p.name!);
    },
  });
  route(scope, {
    method: "PATCH",
    url: `${base}/:name`,
    summary: "Change an MCP server; `credentials` replaces them, null removes them",
    tag: "mcp",
    params: { workspace_id: id, name: id },
    body: mcpServerUpdateSchema,
    response: [200, mcpServerSchema],
    handler: (request) => {
      const p = params(request);
      return management.mcpServers.update(actorOf(request), p.workspace_id!, p.name!, body<McpServerPatch>(request));
    },
  });
  route(scope, {
    method: "DELETE",
    url: `${base}/:name`,
    summary: "Delete an MCP server with its pinned tool definitions",
    tag: "mcp",
    params: { workspace_id: id, name: id },
    response: [204, null],
    handler: (request) => {
      const p = params(request);
      return management.mcpServers.delete(actorOf(request), p.workspace_id!, p.name!);
    },
  });
  route(scope, {
    method: "GET",
    url: `${base}/:name/tools`,
    summary: "The pinned tool definitions of an MCP server; `changed` and `unapproved` ones are withheld from clients",
    tag: "mcp",
    params: { workspace_id: id, name: id },
    response: [200, listOf(mcpToolPinSchema)],
    handler: async (request) => {
      const p = params(request);
      return { data: await management.mcpServers.pins(actorOf(request), p.workspace_id!, p.name!) };
    },
  });
  route(scope, {
    method: "POST",
    url: `${base}/:name/tools/:tool/approve`,
    summary: "Approve the definition a tool is withheld for: it becomes the tool's pin and clients see the tool again",
    tag: "mcp",
    params: { workspace_id: id, name: id, tool: id },
    body: approveBody,
    response: [200, mcpToolPinSchema],
    handler: (request) => {
      const p = params(request);
      const hash = body<{ hash?: string } | undefined>(request)?.hash;
      return management.mcpServers.approve(actorOf(request), p.workspace_id!, p.name!, p.tool!, hash);
    },
  });
}
