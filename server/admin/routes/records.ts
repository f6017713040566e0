/**
 * Guardrail and config routes of a workspace. Saving validates with the engine and gates by plan;
 * `version` in the body makes an update conditional on the version being replaced.
 */
import type { FastifyInstance } from "fastify";
import type { ConfigInput } from "../../management/configs.js";
import type { GuardrailInput } from "../../management/guardrails.js";
import type { Management } from "../../management/index.js";
import { configSchema, guardrailSchema } from "../../management/schemas.js";
import { actorOf } from "../auth.js";
import { configRecordSchema, guardrailRecordSchema, listOf } from "../schemas.js";
import { body, params, route } from "./route.js";

const id = { type: "string" };

export function recordRoutes(scope: FastifyInstance, management: Management): void {
  for (const kind of ["guardrails", "configs"] as const) {
    const service = kind === "guardrails" ? management.guardrails : management.configs;
    const one = kind === "guardrails" ? "guardrail" : "config";
    const recordSchema = kind === "guardrails" ? guardrailRecordSchema : configRecordSchema;
    const bodySchema = kind === "guardrails" ? guardrailSchema : configSchema;
    // Both services take (actor, workspace, id, input) alike; the body types differ.
    const save = service as unknown as {
      create(actor: unknown, workspaceId: string, input: unknown): Promise<unknown>;
      update(actor: unknown, workspaceId: string, id: string, input: unknown): Promise<unknown>;
    };
    route(scope, {
      method: "GET",
      url: `/workspaces/:workspace_id/${kind}`,
      summary: `A workspace's ${kind}`,
      tag: kind,
      params: { workspace_id: id },
      response: [200, listOf(recordSchema)],
      handler: async (request) => ({ data: await service.list(actorOf(request), params(request).workspace_id!) }),
    });
    route(scope, {
      method: "POST",
      url: `/workspaces/:workspace_id/${kind}`,
      summary:
        kind === "guardrails"
          ? "Save a guardrail (validated by the check registry, gated by plan)"
          : "Save a config (validated as a request would load it, guardrails gated by plan)",
      tag: kind,
      params: { workspace_id: id },
      body: bodySchema,
      response: [201, recordSchema],
      handler: (request) =>
        save.create(actorOf(request), params(request).workspace_id!, body<GuardrailInput | ConfigInput>(request)),
    });
    route(scope, {
      method: "GET",
      url: `/workspaces/:workspace_id/${kind}/:id`,
      summary: `A ${one}`,
      tag: kind,
      params: { workspace_id: id, id },
      response: [200, recordSchema],
      handler: (request) => {
        const p = params(request);
        return service.get(actorOf(request), p.workspace_id!, p.id!);
      },
    });
    route(scope, {
      method: "PUT",
      url: `/workspaces/:workspace_id/${kind}/:id`,
      summary: `Replace a ${one} (a new version); with \`version\`, only if that is the current one`,
      tag: kind,
      params: { workspace_id: id, id },
      body: bodySchema,
      response: [200, recordSchema],
      handler: (request) => {
        const p = params(request);
        return save.update(actorOf(request), p.workspace_id!, p.id!, body<GuardrailInput | ConfigInput>(request));
      },
    });
    route(scope, {
      method: "DELETE",
      url: `/workspaces/:workspace_id/${kind}/:id`,
      summary: kind === "guardrails" ? "Delete a guardrail no config uses" : "Delete a config",
      tag: kind,
      params: { workspace_id: id, id },
      response: [204, null],
      handler: (request) => {
        const p = params(request);
        return service.delete(actorOf(request), p.workspace_id!, p.id!);
      },
    });
  }
}
