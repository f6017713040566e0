/**
 * Plugin integration routes (spec §1.7): credentials of third-party guardrail services, which the
 * gateway hands to the checks of their plugin. Credentials go in and never come out.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import type { PluginIntegrationInput, PluginIntegrationPatch } from "../../management/plugin-integrations.js";
import { pluginIntegrationCreateSchema, pluginIntegrationUpdateSchema } from "../../management/schemas.js";
import { actorOf } from "../auth.js";
import { listOf, pluginIntegrationSchema } from "../schemas.js";
import { body, params, query, route } from "./route.js";

const id = { type: "string" };
const tag = "plugin integrations";

export function pluginIntegrationRoutes(scope: FastifyInstance, management: Management): void {
  route(scope, {
    method: "GET",
    url: "/plugin-integrations",
    summary: "Plugin integrations the caller sees; `workspace_id` lists one workspace's own",
    tag,
    query: { type: "object", properties: { workspace_id: id }, additionalProperties: false },
    response: [200, listOf(pluginIntegrationSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      const workspaceId = query<{ workspace_id?: string }>(request).workspace_id;
      return {
        data: await management.pluginIntegrations.list(
          actor,
          actor.organization_id,
          workspaceId !== undefined ? { workspace_id: workspaceId } : {},
        ),
      };
    },
  });
  route(scope, {
    method: "POST",
    url: "/plugin-integrations",
    summary:
      "Hold credentials for a plugin's checks: the organization's (org admins; `workspaces` says which it serves) or, with workspace_id, a workspace's own that overrides it there",
    tag,
    body: pluginIntegrationCreateSchema,
    response: [201, pluginIntegrationSchema],
    handler: (request) => {
      const actor = actorOf(request);
      return management.pluginIntegrations.create(actor, actor.organization_id, body<PluginIntegrationInput>(request));
    },
  });
  route(scope, {
    method: "GET",
    url: "/plugin-integrations/:plugin_integration_id",
    summary: "A plugin integration (credentials are never returned; `credential_keys` names those held)",
    tag,
    params: { plugin_integration_id: id },
    response: [200, pluginIntegrationSchema],
    handler: (request) => management.pluginIntegrations.get(actorOf(request), params(request).plugin_integration_id!),
  });
  route(scope, {
    method: "PATCH",
    url: "/plugin-integrations/:plugin_integration_id",
    summary: "Change a plugin integration; `credentials` replaces them whole; takes effect on the next request",
    tag,
    params: { plugin_integration_id: id },
    body: pluginIntegrationUpdateSchema,
    response: [200, pluginIntegrationSchema],
    handler: (request) =>
      management.pluginIntegrations.update(
        actorOf(request),
        params(request).plugin_integration_id!,
        body<PluginIntegrationPatch>(request),
      ),
  });
  route(scope, {
    method: "DELETE",
    url: "/plugin-integrations/:plugin_integration_id",
    summary: "Delete a plugin integration: its plugin's checks get no credentials from it from the next request",
    tag,
    params: { plugin_integration_id: id },
    response: [204, null],
    handler: (request) => management.pluginIntegrations.delete(actorOf(request), params(request).plugin_integration_id!),
  });
}
