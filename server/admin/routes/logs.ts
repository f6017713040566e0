/**
 * Request log routes (spec §1.8, §2.5): filtered, cursor-paged lists; the log view of one request;
 * per-guardrail and per-check aggregates over a time range. And the check catalog, with what the
 * caller's plan includes.
 */
import type { FastifyInstance } from "fastify";
import type { Management } from "../../management/index.js";
import { planAllows } from "../../management/plans.js";
import type { SchemaType } from "../../schema-types.js";
import type { LogFilter } from "../../store/log-types.js";
import { actorOf } from "../auth.js";
import { aggregateSchema, checkInfoSchema, listOf, logPageSchema, logViewSchema } from "../schemas.js";
import { params, query, route } from "./route.js";

const time = { type: "string", format: "date-time" } as const;

const logQuery = {
  type: "object",
  properties: {
    workspace_id: { type: "string" },
    from: { ...time, description: "Inclusive lower bound." },
    to: { ...time, description: "Exclusive upper bound." },
    status: { type: "string", pattern: "^\\d{3}(,\\d{3})*$", description: "Comma-separated statuses, e.g. 246,446." },
    guardrail_id: { type: "string" },
    check_id: { type: "string" },
    verdict: {
      type: "string",
      enum: ["pass", "fail"],
      description: "Of the check when check_id is given, of the guardrail when guardrail_id is, of any guardrail otherwise.",
    },
    model: { type: "string" },
    feedback_min: {
      type: "integer",
      minimum: -10,
      maximum: 10,
      description: "Logs with some feedback (POST /v1/feedback) of at least this value.",
    },
    feedback_max: {
      type: "integer",
      minimum: -10,
      maximum: 10,
      description: "Logs with some feedback of at most this value.",
    },
    limit: { type: "integer", minimum: 1, maximum: 500, default: 50 },
    cursor: { type: "string" },
  },
  additionalProperties: false,
} as const;

const aggregateQuery = {
  type: "object",
  properties: {
    workspace_id: { type: "string" },
    from: { ...time, description: "Inclusive lower bound; 24 hours ago by default." },
    to: { ...time, description: "Exclusive upper bound; now by default." },
    guardrail_id: { type: "string" },
    check_id: { type: "string" },
  },
  additionalProperties: false,
};

/** The query as validated (defaults applied): a log filter, its statuses still one string. */
type LogQuery = SchemaType<typeof logQuery>;

/** Timestamps are stored in one format, so bounds are normalised to it before comparing. */
function iso(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}

export function logRoutes(scope: FastifyInstance, management: Management): void {
  route(scope, {
    method: "GET",
    url: "/logs",
    summary: "Request logs, newest first, filtered and cursor-paged",
    tag: "logs",
    query: logQuery,
    response: [200, logPageSchema],
    handler: async (request) => {
      const { status, from, to, ...rest } = query<LogQuery>(request);
      const filter: LogFilter = { ...rest };
      if (status !== undefined) filter.status = status.split(",").map(Number);
      if (from !== undefined) filter.from = iso(from);
      if (to !== undefined) filter.to = iso(to);
      const page = await management.logs.query(actorOf(request), filter);
      return { data: page.items, next_cursor: page.next_cursor };
    },
  });
  route(scope, {
    method: "GET",
    url: "/logs/:log_id",
    summary: "The log view of one request: checks passed and failed, verdict and latency per check, feedback",
    tag: "logs",
    params: { log_id: { type: "string" } },
    response: [200, logViewSchema],
    handler: (request) => management.logs.get(actorOf(request), params(request).log_id!),
  });
  route(scope, {
    method: "GET",
    url: "/analytics/guardrails",
    summary: "Per-guardrail and per-check pass/fail counts and latency percentiles over a time range",
    tag: "logs",
    query: aggregateQuery,
    response: [200, aggregateSchema],
    handler: async (request) => {
      const q = query<LogFilter>(request);
      const to = iso(q.to) ?? new Date().toISOString();
      const from = iso(q.from) ?? new Date(Date.parse(to) - 24 * 3600_000).toISOString();
      const aggregate = await management.logs.aggregate(actorOf(request), { ...q, from, to });
      return { from, to, ...aggregate };
    },
  });
  route(scope, {
    method: "GET",
    url: "/checks",
    summary: "Every check the gateway can run, with its parameters and whether the caller's plan includes it",
    tag: "checks",
    response: [200, listOf(checkInfoSchema)],
    handler: async (request) => {
      const actor = actorOf(request);
      const organization = await management.organizations.get(actor, actor.organization_id);
      return {
        data: management.context.registry.checks().map((check) => ({
          id: check.id,
          plugin: check.plugin,
          class: check.class,
          name: check.name,
          description: check.description,
          sides: check.sides,
          kind: check.kind,
          parameters: check.parameters,
          available: organization.guardrails_enabled && planAllows(organization.plan, check.class),
        })),
      };
    },
  });
}
