/**
 * The inference routes (spec §4): HTTP in and out. Each opens the request and hands it to the
 * pipeline, which owns the request's life from its open stage to its record and hands back the
 * answer, and sends that answer, JSON or streamed.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { identityOf } from "../request/open.js";
import { describeError } from "../describe-error.js";
import { errorBody, GatewayError } from "../errors.js";
import { ENDPOINTS, type Endpoint } from "../formats/endpoints.js";
import type { Delivery, Pipeline } from "../request/pipeline.js";

/** Requests whose log record the handler has begun, so the error hook does not write a second. */
const logged = new WeakSet<FastifyRequest>();

/** The signal of a request refused before its handler ran: there is nothing left to abort. */
const NEVER_ABORTED = new AbortController().signal;

/** Registers the inference routes. */
export function inferenceRoutes(app: FastifyInstance, pipeline: Pipeline, bodyLimit: number): void {
  const byRoute = new Map(ENDPOINTS.map((endpoint) => [endpoint.route, endpoint]));
  for (const endpoint of ENDPOINTS) {
    app.post(endpoint.route, (request, reply) => answer(endpoint, request, reply, pipeline));
  }
  // A request refused before its handler ran (a body that is not JSON, too large, too deep) is
  // still an answered request of a known caller: it gets its record too.
  app.addHook("onError", async (request, _reply, error) => {
    const endpoint = byRoute.get(request.routeOptions.url ?? "");
    if (!endpoint || !request.identity || logged.has(request)) return;
    logged.add(request);
    void pipeline.refused(pipeline.open(endpoint, request, request.identity, NEVER_ABORTED), describeError(error, bodyLimit));
  });
}

async function answer(
  endpoint: Endpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  pipeline: Pipeline,
): Promise<FastifyReply> {
  const controller = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new GatewayError("client_closed", "the client closed the connection"));
  });
  const opened = pipeline.open(endpoint, request, identityOf(request), controller.signal);
  // From here the pipeline writes the record, refusals included.
  logged.add(request);
  send(reply, endpoint, await pipeline.handle(opened, request.body));
  return reply;
}

/** Writes the gateway's answer; `x-gateway-request-id` is already on every answer (app.ts). */
function send(reply: FastifyReply, endpoint: Endpoint, delivery: Delivery): void {
  switch (delivery.kind) {
    case "json":
      reply.code(delivery.status).headers(delivery.headers);
      if (delivery.raw !== undefined) void reply.type(delivery.contentType ?? "text/plain").send(delivery.raw);
      else void reply.send(delivery.body);
      return;
    case "stream":
      reply
        .code(delivery.status)
        .headers(delivery.headers)
        .header("content-type", "text/event-stream; charset=utf-8")
        .header("cache-control", "no-cache");
      void reply.send(Readable.from(delivery.body, { objectMode: false }));
      return;
    case "closed":
      void reply
        .code(delivery.error.status)
        .send(errorBody(endpoint.errorStyle, delivery.error.status, delivery.error.code, delivery.error.message));
  }
}
