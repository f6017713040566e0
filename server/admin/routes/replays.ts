/**
 * Replay routes: run a guardrail or a policy over request logs whose bodies were kept and answer
 * what it would have done (docs/policies.md, "Replay"); saved reports and their comparison.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import type { ReplayInput } from "../../management/replays.js";
import { replayBodySchema } from "../../management/schemas.js";
import { replayReportSchema as savedSchema } from "../../store/schemas.js";
import { actorOf } from "../auth.js";
import { body, params, route } from "./route.js";

const tag = "replay";
const anyObject = { type: "object", additionalProperties: true };

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
