/**
 * `POST /v1/messages/count_tokens` (server/count-tokens.ts): HTTP in and out. The request is read
 * as intake reads a `/v1/messages` one (the gateway headers, the config's routing); a refusal is
 * written by the app's error handler in the Anthropic envelope.
 */
import type { FastifyInstance } from "fastify";
import { isObject } from "../../core/internal.js";
import { COUNT_TOKENS_ENDPOINT, type TokenCounter } from "../request/count-tokens.js";
import { GatewayError } from "../errors.js";
import { HEADER, headerValue } from "../gateway-headers.js";
import { callerCredentials, headerProviderSettings, identityOf } from "../request/open.js";
import type { RoutingResolver } from "../routing/resolver.js";

/** Registers the token count route. */
export function countTokensRoute(app: FastifyInstance, counter: TokenCounter, routing: RoutingResolver): void {
  app.post(COUNT_TOKENS_ENDPOINT.route, async (request, reply) => {
    const identity = identityOf(request);
    if (!isObject(request.body)) throw new GatewayError("invalid_request", "the body must be a JSON object");
    const controller = new AbortController();
    reply.raw.on("close", () => {
      if (!reply.raw.writableFinished) controller.abort(new GatewayError("client_closed", "the client closed the connection"));
    });
    const answer = await counter.count({
      identity,
      headers: request.headers,
      body: request.body,
      routing: await routing.resolve(headerValue(request.headers, HEADER.config), { workspaceId: identity.workspaceId }),
      headerProvider: headerProviderSettings(request.headers),
      caller: callerCredentials(request.headers),
      signal: controller.signal,
    });
    return reply.code(answer.status).headers(answer.headers).type(answer.contentType).send(answer.body);
  });
}
