/**
 * Organization, workspace and API key routes. The caller's organization is its key's; the operator
 * manages organizations themselves through the CLI and the config file.
 */
import type { FastifyInstance } from "fastify";
import type { ApiKeyInput, ApiKeyPatch } from "../../management/api-keys.js";
import type { Management } from "../../management/index.js";
import type { OrganizationPatch } from "../../management/organizations.js";
import {
  apiKeyCreateSchema,
  apiKeyUpdateSchema,
  organizationUpdateSchema,
  workspaceCreateSchema,
  workspaceUpdateSchema,
} from "../../management/schemas.js";
import type { WorkspaceInput, WorkspacePatch } from "../../management/workspaces.js";
import { actorOf } from "../auth.js";
import { apiKeySchema, createdApiKeySchema, listOf, organizationSchema, workspaceSchema } from "../schemas.js";
import { body, params, query, route } from "./route.js";

const id = { type: "string" };

export function tenancyRoutes(scope: FastifyInstance, management: Management): void {
  route(scope, {
    method: "GET",
    url: "/organizations",
    summary: "The caller's organization (as a list of one)",
    tag: "organizations",
    response: [200, listOf(organizationSchema)],
    handler: async (request) => ({ data: await management.organizations.list(actorOf(request)) }),
  });
  route(scope, {
    method: "GET",
    url: "/organizations/:organization_id",
    summary: "An organization",
    tag: "organizations",
    params: { organization_id: id },
    response: [200, organizationSchema],
    handler: (request) => management.organizations.get(actorOf(request), params(request).organization_id!),
  });
  route(scope, {
    method: "PATCH",
    url: "/organizations/:organization_id",
    summary:
      "Change an organization's name, defaults or workspace-integration permission (plan and guardrails flag: operator only)",
    tag: "organizations",
    params: { organization_id: id },
    body: organizationUpdateSchema,
    response: [200, organizationSchema],
    handler: (request) =>
      management.organizations.update(actorOf(request), params(request).organization_id!, body<OrganizationPatch>(request)),
  });

  route(scope, {
    method: "GET",
    url: "/workspaces",
    summary: "Workspaces the caller sees",
    tag: "workspaces",
    response: [200, listOf(workspaceSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      return { data: await management.workspaces.list(actor, actor.organization_id) };
    },
  });
  route(scope, {
    method: "POST",
    url: "/workspaces",
    summary: "Create a workspace (provisions every auto-provisioned integration to it)",
    tag: "workspaces",
    body: workspaceCreateSchema,
    response: [201, workspaceSchema],
    handler: (request) => {
      const actor = actorOf(request);
      const { organization_id: organizationId, ...input } = body<WorkspaceInput & { organization_id?: string }>(request);
      // The caller's organization; naming another one finds nothing.
      return management.workspaces.create(actor, organizationId ?? actor.organization_id, input);
    },
  });
  route(scope, {
    method: "GET",
    url: "/workspaces/:workspace_id",
    summary: "A workspace",
    tag: "workspaces",
    params: { workspace_id: id },
    response: [200, workspaceSchema],
    handler: (request) => management.workspaces.get(actorOf(request), params(request).workspace_id!),
  });
  route(scope, {
    method: "PATCH",
    url: "/workspaces/:workspace_id",
    summary: "Change a workspace (its rate limit: org admins only)",
    tag: "workspaces",
    params: { workspace_id: id },
    body: workspaceUpdateSchema,
    response: [200, workspaceSchema],
    handler: (request) =>
      management.workspaces.update(actorOf(request), params(request).workspace_id!, body<WorkspacePatch>(request)),
  });
  route(scope, {
    method: "DELETE",
    url: "/workspaces/:workspace_id",
    summary: "Delete a workspace with its keys, providers, guardrails, configs and logs",
    tag: "workspaces",
    params: { workspace_id: id },
    response: [204, null],
    handler: (request) => management.workspaces.delete(actorOf(request), params(request).workspace_id!),
  });

  route(scope, {
    method: "GET",
    url: "/me",
    summary: "The calling key's record: its role, organization and workspace decide what it may see and change",
    tag: "api-keys",
    response: [200, apiKeySchema],
    handler: (request) => {
      const actor = actorOf(request);
      return management.apiKeys.get(actor, actor.key_id);
    },
  });
  route(scope, {
    method: "GET",
    url: "/api-keys",
    summary: "API keys the caller sees (never the keys themselves)",
    tag: "api-keys",
    query: { type: "object", properties: { workspace_id: id }, additionalProperties: false },
    response: [200, listOf(apiKeySchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      return {
        data: await management.apiKeys.list(actor, actor.organization_id, query<{ workspace_id?: string }>(request).workspace_id),
      };
    },
  });
  route(scope, {
    method: "POST",
    url: "/api-keys",
    summary: "Create an API key; the key is in this answer only",
    tag: "api-keys",
    body: apiKeyCreateSchema,
    response: [201, createdApiKeySchema],
    handler: async (request) => {
      const actor = actorOf(request);
      const created = await management.apiKeys.create(actor, actor.organization_id, body<ApiKeyInput>(request));
      return { ...created.api_key, key: created.key };
    },
  });
  route(scope, {
    method: "GET",
    url: "/api-keys/:key_id",
    summary: "An API key record",
    tag: "api-keys",
    params: { key_id: id },
    response: [200, apiKeySchema],
    handler: (request) => management.apiKeys.get(actorOf(request), params(request).key_id!),
  });
  route(scope, {
    method: "PATCH",
    url: "/api-keys/:key_id",
    summary: "Rename a key or change its role",
    tag: "api-keys",
    params: { key_id: id },
    body: apiKeyUpdateSchema,
    response: [200, apiKeySchema],
    handler: (request) => management.apiKeys.update(actorOf(request), params(request).key_id!, body<ApiKeyPatch>(request)),
  });
  route(scope, {
    method: "DELETE",
    url: "/api-keys/:key_id",
    summary: "Revoke a key (it stops working at once)",
    tag: "api-keys",
    params: { key_id: id },
    response: [204, null],
    handler: (request) => management.apiKeys.delete(actorOf(request), params(request).key_id!),
  });
}
