/**
 * The four inference routes (spec §4): each builds the request context, runs the pipeline and
 * sends its answer, JSON or streamed.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { identityOf } from "../auth.js";
import { errorBody, GatewayError } from "../errors.js";
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
import { EMPTY_PLAN } from "../plan/build.js";
import type { PlanResolver } from "../plan/resolver.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Registers the inference routes. */
export function inferenceRoutes(app: FastifyInstance, gateway: Gateway, plans: PlanResolver): void {
  for (const endpoint of ENDPOINTS) {
    app.post(endpoint.route, (request, reply) => handle(endpoint, request, reply, gateway, plans));
  }
}

async function handle(
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  gateway: Gateway,
  plans: PlanResolver,
): Promise<FastifyReply> {
  const identity = identityOf(request);
  const body = request.body;
  if (!isObject(body)) throw new GatewayError(400, "invalid_request", "the body must be a JSON object");
  const controller = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new GatewayError(499, "client_closed", "the client closed the connection"));
  });
  const fields = {
    endpoint,
    identity,
    body,
    stream: body.stream === true,
    strict: strictCompliance(request.headers),
    metadata: {},
    headers: request.headers,
    headerProvider: headerProviderSettings(request.headers),
    caller: callerCredentials(request.headers),
    plan: EMPTY_PLAN,
    signal: controller.signal,
  };
  let ctx: RequestContext;
  try {
    const metadata = parseMetadata(headerValue(request.headers, HEADER.metadata));
    const plan = await plans.resolve(headerValue(request.headers, HEADER.config), { workspaceId: identity.workspaceId });
    ctx = gateway.context({ ...fields, metadata, plan });
  } catch (error) {
    // A request refused before any target was tried is still logged.
    if (error instanceof GatewayError) void gateway.finish(gateway.context(fields), undefined, undefined, error);
    throw error;
  }
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
  if (outcome.raw !== undefined) reply.type(outcome.contentType ?? "text/plain").send(outcome.raw);
  else reply.send(outcome.body);
  void gateway.finish(ctx, outcome);
  return reply;
}
