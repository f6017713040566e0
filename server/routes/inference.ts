/**
 * The four inference routes (spec §4): each reads the request's fields and hands it to the
 * gateway, which owns its life and gives back the answer to send, JSON or streamed.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { identityOf } from "../auth.js";
import { errorBody, GatewayError } from "../errors.js";
import { ENDPOINTS, type Endpoint } from "../pipeline/endpoints.js";
import type { Gateway } from "../pipeline/gateway.js";
import {
  callerCredentials,
  HEADER,
  headerProviderSettings,
  headerValue,
  parseMetadata,
  strictCompliance,
} from "../pipeline/headers.js";
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
  await gateway.handle(
    fields,
    async () => ({
      metadata: parseMetadata(headerValue(request.headers, HEADER.metadata)),
      plan: await plans.resolve(headerValue(request.headers, HEADER.config), { workspaceId: identity.workspaceId }),
    }),
    {
      closed: (error) => void reply.code(499).send(errorBody(endpoint.errorStyle, 499, error.code, error.message)),
      stream: (id, outcome, stream) => {
        reply.header(HEADER.requestId, id);
        reply
          .code(outcome.status)
          .headers({ ...outcome.headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
        void reply.send(Readable.from(stream, { objectMode: false }));
      },
      json: (id, outcome) => {
        reply.header(HEADER.requestId, id);
        reply.code(outcome.status).headers(outcome.headers);
        if (outcome.raw !== undefined) void reply.type(outcome.contentType ?? "text/plain").send(outcome.raw);
        else void reply.send(outcome.body);
      },
    },
  );
  return reply;
}
