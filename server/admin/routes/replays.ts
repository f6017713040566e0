/**
 * Replay routes: run a guardrail or a policy over request logs whose bodies were kept and answer
 * what it would have done (docs/policies.md, "Replay"); saved reports and their comparison.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import type { ReplayInput } from "../../management/replays.js";
import { actorOf } from "../auth.js";
import { body, params, route } from "./route.js";

const id = { type: "string", minLength: 1 };
const time = { type: "string", format: "date-time" };
const tag = "replay";
const anyObject = { type: "object", additionalProperties: true };

const replayBodySchema = {
  type: "object",
  properties: {
    guardrail_id: id,
    policy_id: id,
    workspace_id: { ...id, description: "The guardrail's workspace (required with guardrail_id); narrows a policy's logs." },
    from: time,
    to: time,
    save: { type: "string", minLength: 1, maxLength: 200, description: "Save the report under this name." },
    compare: { ...id, description: "Id of a saved report to compare this run with." },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: 1_000_000,
      description: "Logs read at most, newest first; 100000 by default.",
    },
  },
  additionalProperties: false,
};

const savedSchema = {
  type: "object",
  properties: {
    id: { type: "string" },
    organization_id: { type: "string" },
    workspace_id: { anyOf: [{ type: "string" }, { type: "null" }] },
    name: { type: "string" },
    created_at: { type: "string" },
  },
  required: ["id", "organization_id", "workspace_id", "name", "created_at"],
  additionalProperties: false,
};

export function replayRoutes(scope: FastifyInstance, management: Management): void {
  route(scope, {
    method: "POST",
    url: "/replay",
    summary:
      "Replay a saved guardrail or a policy over logged requests whose bodies were kept: passed, flagged (246), denied (446), per check, with the latency added",
    tag,
    body: replayBodySchema,
    response: [
      200,
      {
        type: "object",
        properties: { report: anyObject, saved: savedSchema, comparison: anyObject },
        required: ["report"],
        additionalProperties: false,
      },
    ],
    handler: (request) => {
      const actor = actorOf(request);
      return management.replays.run(actor, actor.organization_id, body<ReplayInput>(request), scope.guardgate.engine);
    },
  });
  route(scope, {
    method: "GET",
    url: "/replay-reports",
    summary: "Saved replay reports the caller sees, newest first (without their bodies)",
    tag,
    response: [
      200,
      {
        type: "object",
        properties: { data: { type: "array", items: savedSchema } },
        required: ["data"],
        additionalProperties: false,
      },
    ],
    handler: async (request) => {
      const actor = actorOf(request);
      return { data: await management.replays.listReports(actor, actor.organization_id) };
    },
  });
  route(scope, {
    method: "GET",
    url: "/replay-reports/:report_id",
    summary: "A saved replay report (format in docs/policies.md)",
    tag,
    params: { report_id: { type: "string" } },
    response: [
      200,
      {
        ...savedSchema,
        properties: { ...savedSchema.properties, report: anyObject },
        required: [...savedSchema.required, "report"],
      },
    ],
    handler: (request) => management.replays.getReport(actorOf(request), params(request).report_id!),
  });
}
