/**
 * The hook backend (the README's second use): the engine over HTTP, with no provider call.
 *
 * - `POST /v1/hooks/evaluate` takes `{side, guardrails | config, request_type, request, response?,
 *   metadata?}` and answers `{status, verdict, hook_results, request?, response?}`.
 * - `POST /v1/hooks/webhook` speaks the peer gateway's webhook-check contract (docs/spec-notes.md, "The peer gateway"): it
 *   takes the evaluation context the peer posts and answers `{verdict, data, transformedData?}`, the
 *   guardrails named in the query string (`?guardrails=a,b` or `?config=id`). The peer's own
 *   guardrail decides async and deny, so every guardrail named here counts toward the verdict.
 * - Both routes add the guardrails of the policies holding the caller, as the inference routes do.
 */
import type { FastifyInstance } from "fastify";
import {
  baseRequestType,
  type CheckRegistry,
  type ConfigWarning,
  type Guardrail,
  type GuardrailResult,
  type RequestType,
  type Side,
} from "../../core/index.js";
import { isObject, joinPath, prepareListElement } from "../../core/internal.js";
import { identityOf } from "../auth.js";
import { GatewayError } from "../errors.js";
import { buildRecord, sideResults } from "../logs/record.js";
import type { RequestLogSink } from "../logs/sink.js";
import { checkHeaders } from "../pipeline/headers.js";
import type { Phases } from "../pipeline/phases.js";
import type { RequestPolicy } from "../gate/policy.js";
import type { PlanResolver } from "../plan/resolver.js";
import type { PolicyAttacher } from "../policies/attach.js";
import { requestModel } from "../policies/scope.js";
import type { SchemaType } from "../schema-types.js";
import { compileValidator, type Validator } from "../schema.js";
import type { ApiKeyIdentity, GuardrailSource, Scope } from "../sources/types.js";

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

function requestTypeOf(value: string | undefined, where: string, body?: Record<string, unknown>): RequestType {
  if (value === undefined) {
    if (body && "prompt" in body) return "complete";
    if (body && "input" in body && !("messages" in body)) return "embed";
    return "chatComplete";
  }
  const type = baseRequestType(value);
  if (!type)
    throw new GatewayError("invalid_request_type", `${where}: "${value}" is not one of chatComplete, complete, embed, messages`);
  return type;
}

/** Only string metadata reaches checks (the peer may post other values). */
function stringMetadata(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object") return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** What the hook routes run on: the gateway's own phases, guardrail sources, plans and log. */
export interface HookRouteDeps {
  /** The registry that inline guardrails' checks are looked up in. */
  registry: CheckRegistry;
  phases: Phases;
  plans: PlanResolver;
  guardrails: GuardrailSource;
  logSink: RequestLogSink;
  policy?: RequestPolicy;
  /** Adds the guardrails of the policies holding the caller to `/v1/hooks/evaluate`. */
  policies?: PolicyAttacher;
}

/** Registers the hook routes; each evaluation is written to the request log like an inference request. */
export function hookRoutes(app: FastifyInstance, deps: HookRouteDeps): void {
  const { registry, phases, plans, guardrails, logSink, policy, policies } = deps;
  const log = (
    id: string,
    route: string,
    identity: ApiKeyIdentity,
    requestType: RequestType,
    side: Side,
    status: number,
    results: GuardrailResult[],
    started: number,
    origin: { configId?: string; inline: readonly string[] },
  ) => {
    const record = buildRecord({
      id,
      started,
      origin: {
        workspaceId: identity.workspaceId,
        apiKeyId: identity.id,
        route,
        requestType,
        stream: false,
        ...(origin.configId && { configId: origin.configId }),
        inlineGuardrails: origin.inline,
      },
      status,
      hookResults: sideResults(side, results),
    });
    logSink.write(record).catch((error: unknown) => app.log.error({ err: error }, "writing the request log failed"));
  };

  const prepareList = async (list: unknown[], side: Side, path: string, scope: Scope) => {
    const prepared = await Promise.all(
      list.map((element, index) =>
        prepareListElement(element, side, joinPath(path, index), { registry, source: guardrails, scope }),
      ),
    );
    const listed = prepared.map((p) => p.guardrail);
    await policy?.gate(listed, scope, path);
    const inline = listed.filter((g) => g.inline).map((g) => g.id);
    return { guardrails: listed, warnings: prepared.flatMap((p) => p.warnings), origin: { inline } };
  };

  const fromConfig = async (config: string | Record<string, unknown>, side: Side, scope: Scope) => {
    const plan =
      typeof config === "string" ? await plans.resolve(config, scope, "config") : await plans.build(config, scope, "config");
    const list = plan.root[side];
    const origin = { ...(plan.configId && { configId: plan.configId }), inline: plan.inlineGuardrails };
    return { guardrails: [...list.sync, ...list.async], warnings: plan.warnings, origin };
  };

  /** The policies holding the caller's key (and the model the request names) run on both hook routes. */
  const withPolicies = async (
    side: Side,
    identity: ApiKeyIdentity,
    evaluated: unknown,
    listed: Guardrail[],
  ): Promise<Guardrail[]> => {
    if (!policies) return listed;
    const set = await policies.forRequest({
      workspaceId: identity.workspaceId,
      apiKeyId: identity.id,
      model: requestModel(isObject(evaluated) ? evaluated.model : undefined, undefined),
    });
    return policies.merge(side, set, listed);
  };

  app.post("/v1/hooks/evaluate", async (request) => {
    const started = performance.now();
    const identity = identityOf(request);
    const body = request.body;
    validateEvaluateBody(body, "");
    const scope = { workspaceId: identity.workspaceId };
    if ((body.guardrails === undefined) === (body.config === undefined)) {
      throw new GatewayError("invalid_request", "give exactly one of guardrails or config");
    }
    if (body.side === "output" && body.response === undefined) {
      throw new GatewayError("invalid_request", "response: is required on the output side");
    }
    const requestType = requestTypeOf(body.request_type, "request_type", body.request);
    const {
      guardrails: listed,
      warnings,
      origin,
    } = body.guardrails
      ? await prepareList(body.guardrails, body.side, "guardrails", scope)
      : await fromConfig(body.config as string | Record<string, unknown>, body.side, scope);
    const prepared = await withPolicies(body.side, identity, body.request, listed);
    const evaluation = await phases.whole(body.side, prepared, body.request, body.response, {
      requestType,
      metadata: body.metadata ?? {},
      headers: checkHeaders(request.headers, false),
      workspaceId: identity.workspaceId,
    });
    const results = [...evaluation.results, ...evaluation.asyncResults];
    log(request.id, "/v1/hooks/evaluate", identity, requestType, body.side, evaluation.status, results, started, origin);
    const answer: Record<string, unknown> = {
      status: evaluation.status,
      verdict: evaluation.verdict,
      hook_results: sideResults(body.side, results),
    };
    if (evaluation.transformed)
      answer[body.side === "input" ? "request" : "response"] = evaluation[body.side === "input" ? "request" : "response"];
    if (warnings.length) answer.warnings = warnings satisfies ConfigWarning[];
    return answer;
  });

  app.post("/v1/hooks/webhook", async (request) => {
    const started = performance.now();
    const identity = identityOf(request);
    const body = request.body;
    validateWebhookBody(body, "");
    const scope = { workspaceId: identity.workspaceId };
    const query = request.query as Record<string, string | string[] | undefined>;
    const single = (name: string) => (Array.isArray(query[name]) ? query[name][0] : query[name]);
    const ids = single("guardrails")
      ?.split(",")
      .map((id) => id.trim())
      .filter(Boolean);
    const configId = single("config");
    if (!ids?.length === !configId) {
      throw new GatewayError("invalid_request", "name the guardrails to run: ?guardrails=id1,id2 or ?config=<config id>");
    }
    const sideParam = single("side");
    if (sideParam !== undefined && sideParam !== "input" && sideParam !== "output") {
      throw new GatewayError("invalid_request", 'side: must be "input" or "output"');
    }
    const side: Side = (sideParam as Side | undefined) ?? (body.eventType === "afterRequestHook" ? "output" : "input");
    const requestJson = body.request?.json ?? {};
    if (side === "output" && !body.response?.json) {
      throw new GatewayError("invalid_request", "response.json: is required for an afterRequestHook");
    }
    const requestType = requestTypeOf(body.requestType, "requestType", requestJson);
    const { guardrails: listed, origin } = ids?.length
      ? await prepareList(ids, side, "guardrails", scope)
      : await fromConfig(configId as string, side, scope);
    // The peer's own guardrail decides async and deny; a policy's monitor guardrails stay monitors.
    const prepared = await withPolicies(
      side,
      identity,
      requestJson,
      listed.map((g): Guardrail => ({ ...g, async: false })),
    );
    const evaluation = await phases.whole(side, prepared, requestJson, body.response?.json, {
      requestType,
      metadata: stringMetadata(body.metadata),
      headers: {},
      ...(body.provider !== undefined && { provider: body.provider }),
      workspaceId: identity.workspaceId,
    });
    log(
      request.id,
      "/v1/hooks/webhook",
      identity,
      requestType,
      side,
      evaluation.status,
      [...evaluation.results, ...evaluation.asyncResults],
      started,
      origin,
    );
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
