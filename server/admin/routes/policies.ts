/**
 * Policy routes: guardrails every request in a scope runs, which the client cannot remove. Org
 * admins keep the organisation's policies, workspace admins their workspace's; members read.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import type { PolicyInput, PolicyPatch } from "../../management/policies.js";
import { policyCreateSchema, policyUpdateSchema } from "../../management/schemas.js";
import { actorOf } from "../auth.js";
import { listOf, policyRecordSchema } from "../schemas.js";
import { body, params, query, route } from "./route.js";

const id = { type: "string" };
const tag = "policies";

export function policyRoutes(scope: FastifyInstance, management: Management): void {
  route(scope, {
    method: "GET",
    url: "/policies",
    summary: "Policies the caller sees; `workspace_id` lists one workspace's own",
    tag,
    query: { type: "object", properties: { workspace_id: id }, additionalProperties: false },
    response: [200, listOf(policyRecordSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      const workspaceId = query<{ workspace_id?: string }>(request).workspace_id;
      return {
        data: await management.policies.list(
          actor,
          actor.organization_id,
          workspaceId !== undefined ? { workspace_id: workspaceId } : {},
        ),
      };
    },
  });
  route(scope, {
    method: "POST",
    url: "/policies",
    summary:
      "Save a policy: organisation-wide (org admins) or, with workspace_id, a workspace's (its admins); guardrails validated and gated by plan",
    tag,
    body: policyCreateSchema,
    response: [201, policyRecordSchema],
    handler: (request) => {
      const actor = actorOf(request);
      return management.policies.create(actor, actor.organization_id, body<PolicyInput>(request));
    },
  });
  route(scope, {
    method: "GET",
    url: "/policies/:policy_id",
    summary: "A policy",
    tag,
    params: { policy_id: id },
    response: [200, policyRecordSchema],
    handler: (request) => management.policies.get(actorOf(request), params(request).policy_id!),
  });
  route(scope, {
    method: "PATCH",
    url: "/policies/:policy_id",
    summary: "Change a policy; it applies from the next request",
    tag,
    params: { policy_id: id },
    body: policyUpdateSchema,
    response: [200, policyRecordSchema],
    handler: (request) => management.policies.update(actorOf(request), params(request).policy_id!, body<PolicyPatch>(request)),
  });
  route(scope, {
    method: "DELETE",
    url: "/policies/:policy_id",
    summary: "Delete a policy",
    tag,
    params: { policy_id: id },
    response: [204, null],
    handler: (request) => management.policies.delete(actorOf(request), params(request).policy_id!),
  });
}
