/**
 * The four inference routes (spec §4): each reads the request's fields and hands it to the
 * gateway, which owns its life and gives back the answer to send, JSON or streamed.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { identityOf } from "../auth.js";
import { describeError, errorBody, GatewayError } from "../errors.js";
import { ENDPOINTS, type Endpoint } from "../formats/endpoints.js";
import type { Gateway, RequestFields } from "../pipeline/gateway.js";
import {
  callerCredentials,
  HEADER,
  headerProviderSettings,
  headerValue,
  parseMetadata,
  strictCompliance,
} from "../pipeline/headers.js";
import { assertRequestShape } from "../pipeline/request-shape.js";
import { EMPTY_PLAN } from "../plan/build.js";
import type { PlanResolver } from "../plan/resolver.js";
import { isObject } from "../../core/internal.js";

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
    const fields = contextFields(endpoint, request, isObject(request.body) ? request.body : {}, new AbortController().signal);
    void gateway.refused(fields, describeError(error, bodyLimit));
  });
}

/** The request's fields before anything that can refuse it has been read. */
function contextFields(
  endpoint: Endpoint,
  request: FastifyRequest,
  body: Record<string, unknown>,
  signal: AbortSignal,
): RequestFields {
  return {
    // The request id fastify made (app.ts): the access line, the answer's header and the log record share it.
    id: request.id,
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
    if (!reply.raw.writableFinished) controller.abort(new GatewayError("client_closed", "the client closed the connection"));
  });
  const body = isObject(request.body) ? request.body : {};
  const fields = contextFields(endpoint, request, body, controller.signal);
  // From here the gateway writes the record, refusals included.
  logged.add(request);
  await gateway.handle(
    fields,
    async () => {
      if (!isObject(request.body)) throw new GatewayError("invalid_request", "the body must be a JSON object");
      // The shape first: guardrails must never judge a field that is not there.
      assertRequestShape(endpoint.requestType, body);
      fields.strict = strictCompliance(request.headers);
      fields.headerProvider = headerProviderSettings(request.headers);
      fields.caller = callerCredentials(request.headers);
      const identity = fields.identity;
      // Policies are added per target by the gateway, once each target's provider and model are known.
      const plan = await plans.resolve(headerValue(request.headers, HEADER.config), { workspaceId: identity.workspaceId });
      return { metadata: parseMetadata(headerValue(request.headers, HEADER.metadata)), plan };
    },
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
