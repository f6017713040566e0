/**
 * The four inference routes (spec §4): each builds the request context, runs the pipeline and
 * sends its answer, JSON or streamed.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { identityOf } from "../auth.js";
import { describeError, errorBody, GatewayError } from "../errors.js";
import { ENDPOINTS, type Endpoint } from "../pipeline/endpoints.js";
import type { Gateway, RequestContext } from "../pipeline/gateway.js";
import {
  callerCredentials,
  HEADER,
  headerProviderSettings,
  headerValue,
  parseMetadata,
  strictCompliance,
} from "../pipeline/headers.js";
import type { Outcome } from "../pipeline/outcome.js";
import { assertRequestShape } from "../pipeline/request-shape.js";
import { EMPTY_PLAN } from "../plan/build.js";
import type { PlanResolver } from "../plan/resolver.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Requests whose log record the handler has begun, so the error hook does not write a second. */
const logged = new WeakSet<FastifyRequest>();

/** Registers the inference routes. */
export function inferenceRoutes(app: FastifyInstance, gateway: Gateway, plans: PlanResolver, bodyLimit: number): void {
  const byRoute = new Map(ENDPOINTS.map((endpoint) => [endpoint.route, endpoint]));
  for (const endpoint of ENDPOINTS) {
    app.post(endpoint.route, (request, reply) => handle(endpoint, request, reply, gateway, plans));
  }
  // A request refused before its handler ran (a body that is not JSON, too large, too deep) is
  // still an answered request of a known caller: it gets its record too.
  app.addHook("onError", async (request, _reply, error) => {
    const endpoint = byRoute.get(request.routeOptions.url ?? "");
    if (!endpoint || !request.identity || logged.has(request)) return;
    logged.add(request);
    const { status, code, message } = describeError(error, bodyLimit);
    const fields = contextFields(endpoint, request, isObject(request.body) ? request.body : {}, new AbortController().signal);
    void gateway.finish(gateway.context(fields), undefined, undefined, new GatewayError(status, code, message));
  });
}

function contextFields(endpoint: Endpoint, request: FastifyRequest, body: Record<string, unknown>, signal: AbortSignal) {
  return {
    endpoint,
    identity: identityOf(request),
    body,
    stream: body.stream === true,
    strict: true,
    metadata: {},
    headers: request.headers,
    headerProvider: {},
    caller: {},
    plan: EMPTY_PLAN,
    signal,
  };
}

async function handle(
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  gateway: Gateway,
  plans: PlanResolver,
): Promise<FastifyReply> {
  const controller = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new GatewayError(499, "client_closed", "the client closed the connection"));
  });
  const body = isObject(request.body) ? request.body : {};
  const fields = contextFields(endpoint, request, body, controller.signal);
  let ctx: RequestContext;
  try {
    if (!isObject(request.body)) throw new GatewayError(400, "invalid_request", "the body must be a JSON object");
    // The shape first: guardrails must never judge a field that is not there.
    assertRequestShape(endpoint.requestType, body);
    fields.strict = strictCompliance(request.headers);
    fields.headerProvider = headerProviderSettings(request.headers);
    fields.caller = callerCredentials(request.headers);
    const metadata = parseMetadata(headerValue(request.headers, HEADER.metadata));
    const plan = await plans.resolve(headerValue(request.headers, HEADER.config), { workspaceId: fields.identity.workspaceId });
    ctx = gateway.context({ ...fields, metadata, plan });
  } catch (error) {
    // A request refused before any target was tried is still logged.
    logged.add(request);
    const described = describeError(error, 0);
    const failure = error instanceof GatewayError ? error : new GatewayError(described.status, described.code, described.message);
    const written = gateway.finish(gateway.context(fields), undefined, undefined, failure);
    if (gateway.durableLogs) await written;
    throw error;
  }
  logged.add(request);
  let outcome: Outcome;
  try {
    outcome = await gateway.run(ctx);
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    // The client left during a retry wait or an upstream call: nobody to answer.
    const closed = new GatewayError(499, "client_closed", "the client closed the connection");
    void gateway.finish(ctx, undefined, undefined, closed);
    return reply.code(499).send(errorBody(endpoint.errorStyle, 499, closed.code, closed.message));
  }
  reply.header(HEADER.requestId, ctx.id);
  if (outcome.kind === "stream") {
    reply
      .code(outcome.status)
      .headers({ ...outcome.headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    return reply.send(Readable.from(gateway.relay(ctx, outcome), { objectMode: false }));
  }
  reply.code(outcome.status).headers(outcome.headers);
  // Durable logs: the answer leaves once its record is committed, so an answered request always has one.
  const written = gateway.finish(ctx, outcome);
  if (gateway.durableLogs) await written;
  if (outcome.raw !== undefined) reply.type(outcome.contentType ?? "text/plain").send(outcome.raw);
  else reply.send(outcome.body);
  return reply;
}
