/**
 * Integration, provisioning and provider routes (spec §2.6). Integrations are the organization's;
 * providers are a workspace's slugs over them.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import type { IntegrationInput, IntegrationPatch, ProvisioningInput } from "../../management/integrations.js";
import type { ProviderInput, ProviderPatch } from "../../management/providers.js";
import {
  integrationCreateSchema,
  integrationUpdateSchema,
  providerCreateSchema,
  providerUpdateSchema,
  provisioningSchema as provisioningBody,
} from "../../management/schemas.js";
import { actorOf } from "../auth.js";
import { integrationSchema, listOf, providerSchema, provisionedSchema, provisioningSchema } from "../schemas.js";
import { body, params, query, route } from "./route.js";

const id = { type: "string" };

export function providerRoutes(scope: FastifyInstance, management: Management): void {
  route(scope, {
    method: "GET",
    url: "/integrations",
    summary: "Integrations the caller sees; `workspace_id` lists one workspace's own integrations",
    tag: "integrations",
    query: { type: "object", properties: { workspace_id: id }, additionalProperties: false },
    response: [200, listOf(integrationSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      const workspaceId = query<{ workspace_id?: string }>(request).workspace_id;
      return {
        data: await management.integrations.list(
          actor,
          actor.organization_id,
          workspaceId !== undefined ? { workspace_id: workspaceId } : {},
        ),
      };
    },
  });
  route(scope, {
    method: "POST",
    url: "/integrations",
    summary: "Create an integration (with workspace_id: a workspace-only integration, when the organization allows)",
    tag: "integrations",
    body: integrationCreateSchema,
    response: [201, integrationSchema],
    handler: (request) => {
      const actor = actorOf(request);
      return management.integrations.create(actor, actor.organization_id, body<IntegrationInput>(request));
    },
  });
  route(scope, {
    method: "GET",
    url: "/integrations/:integration_id",
    summary: "An integration (credentials are never returned)",
    tag: "integrations",
    params: { integration_id: id },
    response: [200, integrationSchema],
    handler: (request) => management.integrations.get(actorOf(request), params(request).integration_id!),
  });
  route(scope, {
    method: "PATCH",
    url: "/integrations/:integration_id",
    summary: "Change an integration; `credentials` replaces them, null removes them",
    tag: "integrations",
    params: { integration_id: id },
    body: integrationUpdateSchema,
    response: [200, integrationSchema],
    handler: (request) =>
      management.integrations.update(actorOf(request), params(request).integration_id!, body<IntegrationPatch>(request)),
  });
  route(scope, {
    method: "DELETE",
    url: "/integrations/:integration_id",
    summary: "Delete an integration, its provisioning and the providers over it",
    tag: "integrations",
    params: { integration_id: id },
    response: [204, null],
    handler: (request) => management.integrations.delete(actorOf(request), params(request).integration_id!),
  });
  route(scope, {
    method: "GET",
    url: "/integrations/:integration_id/workspaces",
    summary: "The workspaces an integration is provisioned to, with budget and rate limit each",
    tag: "integrations",
    params: { integration_id: id },
    response: [200, listOf(provisioningSchema)],
    handler: async (request) => ({
      data: await management.integrations.provisioning(actorOf(request), params(request).integration_id!),
    }),
  });
  route(scope, {
    method: "PUT",
    url: "/integrations/:integration_id/workspaces/:workspace_id",
    summary: "Provision an integration to a workspace (or change its budget and rate limit there)",
    tag: "integrations",
    params: { integration_id: id, workspace_id: id },
    body: provisioningBody,
    response: [200, provisionedSchema],
    handler: (request) => {
      const p = params(request);
      return management.integrations.provision(
        actorOf(request),
        p.integration_id!,
        p.workspace_id!,
        body<ProvisioningInput>(request) ?? {},
      );
    },
  });
  route(scope, {
    method: "DELETE",
    url: "/integrations/:integration_id/workspaces/:workspace_id",
    summary: "Withdraw an integration from a workspace, with the workspace's providers over it",
    tag: "integrations",
    params: { integration_id: id, workspace_id: id },
    response: [204, null],
    handler: (request) => {
      const p = params(request);
      return management.integrations.unprovision(actorOf(request), p.integration_id!, p.workspace_id!);
    },
  });

  route(scope, {
    method: "GET",
    url: "/workspaces/:workspace_id/providers",
    summary: "A workspace's AI providers",
    tag: "providers",
    params: { workspace_id: id },
    response: [200, listOf(providerSchema)],
    handler: async (request) => ({ data: await management.providers.list(actorOf(request), params(request).workspace_id!) }),
  });
  route(scope, {
    method: "POST",
    url: "/workspaces/:workspace_id/providers",
    summary: "Create a provider over a provisioned integration; its limits may only be stricter",
    tag: "providers",
    params: { workspace_id: id },
    body: providerCreateSchema,
    response: [201, providerSchema],
    handler: (request) =>
      management.providers.create(actorOf(request), params(request).workspace_id!, body<ProviderInput>(request)),
  });
  route(scope, {
    method: "GET",
    url: "/workspaces/:workspace_id/providers/:slug",
    summary: "A provider by slug",
    tag: "providers",
    params: { workspace_id: id, slug: id },
    response: [200, providerSchema],
    handler: (request) => {
      const p = params(request);
      return management.providers.get(actorOf(request), p.workspace_id!, p.slug!);
    },
  });
  route(scope, {
    method: "PATCH",
    url: "/workspaces/:workspace_id/providers/:slug",
    summary: "Change a provider's name, budget, rate limit or models",
    tag: "providers",
    params: { workspace_id: id, slug: id },
    body: providerUpdateSchema,
    response: [200, providerSchema],
    handler: (request) => {
      const p = params(request);
      return management.providers.update(actorOf(request), p.workspace_id!, p.slug!, body<ProviderPatch>(request));
    },
  });
  route(scope, {
    method: "DELETE",
    url: "/workspaces/:workspace_id/providers/:slug",
    summary: "Delete a provider",
    tag: "providers",
    params: { workspace_id: id, slug: id },
    response: [204, null],
    handler: (request) => {
      const p = params(request);
      return management.providers.delete(actorOf(request), p.workspace_id!, p.slug!);
    },
  });
}
