/**
 * The hook backend (the README's second use): the engine over HTTP, with no provider call.
 *
 * - `POST /v1/hooks/evaluate` takes `{side, guardrails | config, request_type, request, response?,
 *   metadata?}` and answers `{status, verdict, hook_results, request?, response?}`.
 * - `POST /v1/hooks/webhook` speaks the peer gateway's webhook-check contract (docs/spec-notes.md, "The peer gateway"): it
 *   takes the evaluation context the peer posts and answers `{verdict, data, transformedData?}`, the
 *   guardrails named in the query string (`?guardrails=a,b` or `?config=id`). The peer's own
 *   guardrail decides async and deny, so every guardrail named here counts toward the verdict.
 *
 * Each route reads its wire format into a hook call; the open stage (`server/request/hook-open.ts`) makes both
 * ready the same way, the guardrails of the policies holding the caller included, as the inference
 * routes have them.
 */
import type { FastifyInstance } from "fastify";
import type { ConfigWarning, Side } from "../../core/index.js";
import { identityOf } from "../request/open.js";
import { GatewayError } from "../errors.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import { HookIntake, type HookIntakeDeps } from "../request/hook-open.js";
import { sideResults } from "../logs/record.js";
import type { Pipeline } from "../request/pipeline.js";
import type { SchemaType } from "../schema-types.js";
import { compileValidator, type Validator } from "../schema.js";

const metadataSchema = { type: "object", additionalProperties: { type: "string" } } as const;

const evaluateBodySchema = {
  type: "object",
  properties: {
    side: { enum: ["input", "output"] },
    guardrails: { type: "array", minItems: 1 },
    config: { type: ["string", "object"] },
    request_type: { type: "string" },
    request: { type: "object" },
    response: { type: "object" },
    metadata: metadataSchema,
  },
  required: ["side", "request"],
  additionalProperties: false,
} as const;

type EvaluateBody = SchemaType<typeof evaluateBodySchema>;

const validateEvaluateBody: Validator<EvaluateBody> = compileValidator<EvaluateBody>(evaluateBodySchema);

/** The peer's evaluation context; it may post more than these fields, and metadata values of any type. */
const webhookBodySchema = {
  type: "object",
  properties: {
    request: { type: "object", properties: { json: { type: "object" } } },
    response: { type: "object", properties: { json: { type: "object" } } },
    eventType: { enum: ["beforeRequestHook", "afterRequestHook"] },
    requestType: { type: "string" },
    provider: { type: "string" },
    metadata: { type: "object" },
  },
  required: ["request"],
} as const;

type WebhookBody = SchemaType<typeof webhookBodySchema>;

const validateWebhookBody: Validator<WebhookBody> = compileValidator<WebhookBody>(webhookBodySchema);

type Query = Record<string, string | string[] | undefined>;

/** One query parameter; the first when it was repeated. */
function single(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What the hook routes run on: intake's sources and the pipeline, which evaluates and records each call. */
export interface HookRouteDeps extends HookIntakeDeps {
  pipeline: Pipeline;
}

/** Registers the hook routes; each evaluation is recorded like an inference request, durably when the logs are. */
export function hookRoutes(app: FastifyInstance, deps: HookRouteDeps): void {
  const { pipeline } = deps;
  const intake = new HookIntake(deps);

  app.post("/v1/hooks/evaluate", async (request) => {
    const started = performance.now();
    const identity = identityOf(request);
    const body = request.body;
    validateEvaluateBody(body, "");
    if ((body.guardrails === undefined) === (body.config === undefined)) {
      throw new GatewayError("invalid_request", "give exactly one of guardrails or config");
    }
    if (body.side === "output" && body.response === undefined) {
      throw new GatewayError("invalid_request", "response: is required on the output side");
    }
    const ctx = await intake.read({
      identity,
      side: body.side,
      guardrails: body.guardrails,
      config: body.config,
      requestType: body.request_type,
      requestTypeField: "request_type",
      request: body.request,
      response: body.response,
      metadata: body.metadata,
      headers: request.headers,
      peer: false,
    });
    const { side } = ctx;
    const tryIt = headerValue(request.headers, HEADER.tryIt) === "true";
    const evaluation = await pipeline.evaluate({
      ...ctx,
      id: request.id,
      started,
      route: "/v1/hooks/evaluate",
      identity,
      origin: { ...ctx.origin, tryIt },
    });
    const results = [...evaluation.results, ...evaluation.asyncResults];
    const answer: Record<string, unknown> = {
      status: evaluation.status,
      verdict: evaluation.verdict,
      hook_results: sideResults(side, results),
    };
    if (evaluation.transformed)
      answer[side === "input" ? "request" : "response"] = evaluation[side === "input" ? "request" : "response"];
    if (ctx.warnings.length) answer.warnings = ctx.warnings satisfies ConfigWarning[];
    return answer;
  });

  app.post("/v1/hooks/webhook", async (request) => {
    const started = performance.now();
    const identity = identityOf(request);
    const body = request.body;
    validateWebhookBody(body, "");
    const query = request.query as Query;
    const ids = single(query, "guardrails")
      ?.split(",")
      .map((id) => id.trim())
      .filter(Boolean);
    const configId = single(query, "config");
    if (!ids?.length === !configId) {
      throw new GatewayError("invalid_request", "name the guardrails to run: ?guardrails=id1,id2 or ?config=<config id>");
    }
    const sideParam = single(query, "side");
    if (sideParam !== undefined && sideParam !== "input" && sideParam !== "output") {
      throw new GatewayError("invalid_request", 'side: must be "input" or "output"');
    }
    const side: Side = (sideParam as Side | undefined) ?? (body.eventType === "afterRequestHook" ? "output" : "input");
    if (side === "output" && !body.response?.json) {
      throw new GatewayError("invalid_request", "response.json: is required for an afterRequestHook");
    }
    const ctx = await intake.read({
      identity,
      side,
      guardrails: ids?.length ? ids : undefined,
      config: configId,
      requestType: body.requestType,
      requestTypeField: "requestType",
      request: body.request?.json ?? {},
      response: body.response?.json,
      metadata: body.metadata,
      headers: request.headers,
      provider: body.provider,
      peer: true,
    });
    const evaluation = await pipeline.evaluate({ ...ctx, id: request.id, started, route: "/v1/hooks/webhook", identity });
    const failed = evaluation.results.filter((r) => !r.verdict).map((r) => r.id);
    const answer: Record<string, unknown> = {
      verdict: evaluation.verdict,
      data: {
        status: evaluation.status,
        explanation: failed.length ? `guardrails failed: ${failed.join(", ")}` : "all guardrails passed",
        hook_results: sideResults(side, evaluation.results),
      },
    };
    if (evaluation.transformed) {
      answer.transformedData =
        side === "input" ? { request: { json: evaluation.request } } : { response: { json: evaluation.response } };
    }
    return answer;
  });
}
