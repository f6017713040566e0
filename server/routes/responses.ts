/**
 * The stored-response routes of the Responses API, for responses answered through the chat form
 * and kept by the gateway (providers/conversations.ts): read one, delete it, cancel it, list its
 * input items. Each is scoped to the caller's workspace; another workspace's id is a 404, as a
 * missing one is, unless the request's gateway headers resolve a provider that keeps responses
 * itself (OpenAI, Azure OpenAI), which is then asked (responses-forward.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { identityOf } from "../request/open.js";
import { GatewayError } from "../errors.js";
import type { IdRoute } from "../providers/kind.js";
import type { Conversations } from "../providers/conversations.js";
import { forwardIdRoute, type ResponsesForwardDeps } from "./responses-forward.js";

const ID = { type: "object", properties: { id: { type: "string", minLength: 1, maxLength: 256 } }, required: ["id"] } as const;

const LIST_QUERY = {
  type: "object",
  properties: {
    limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
    order: { type: "string", enum: ["asc", "desc"], default: "desc" },
    after: { type: "string", maxLength: 256 },
    include: {},
  },
} as const;

type IdParams = { id: string };

/** The id route as the provider is asked it: the client's method, path after `/responses` and query. */
function idRoute(request: FastifyRequest, id: string, tail = ""): IdRoute {
  const at = request.url.indexOf("?");
  return {
    method: request.method as IdRoute["method"],
    path: `/${encodeURIComponent(id)}${tail}`,
    query: at < 0 ? "" : request.url.slice(at + 1),
  };
}

/**
 * Answers from the gateway's store, or, for an id it has not stored, with what the provider the
 * request resolves answers; the 404 stands when that provider does not keep responses.
 */
async function storedOrForwarded(
  forward: ResponsesForwardDeps | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  tail: string,
  stored: () => Promise<unknown>,
): Promise<unknown> {
  try {
    return await stored();
  } catch (error) {
    if (!forward || !(error instanceof GatewayError) || error.code !== "response_not_found") throw error;
    const { id } = request.params as IdParams;
    const answer = await forwardIdRoute(forward, request, identityOf(request).workspaceId, idRoute(request, id, tail));
    if (!answer) throw error;
    return reply.code(answer.status).headers(answer.headers).type(answer.contentType).send(answer.body);
  }
}

/** Registers `GET`/`DELETE /v1/responses/{id}`, `POST /v1/responses/{id}/cancel` and `GET /v1/responses/{id}/input_items`. */
export function responsesRoutes(app: FastifyInstance, conversations: Conversations, forward?: ResponsesForwardDeps): void {
  app.get<{ Params: IdParams }>("/v1/responses/:id", { schema: { params: ID } }, (request, reply) =>
    storedOrForwarded(forward, request, reply, "", async () => {
      return (await conversations.get(identityOf(request).workspaceId, request.params.id)).response;
    }),
  );

  app.delete<{ Params: IdParams }>("/v1/responses/:id", { schema: { params: ID } }, (request, reply) =>
    storedOrForwarded(forward, request, reply, "", async () => {
      await conversations.delete(identityOf(request).workspaceId, request.params.id);
      return { id: request.params.id, object: "response", deleted: true };
    }),
  );

  app.post<{ Params: IdParams }>("/v1/responses/:id/cancel", { schema: { params: ID } }, (request, reply) =>
    storedOrForwarded(forward, request, reply, "/cancel", async () => {
      await conversations.get(identityOf(request).workspaceId, request.params.id);
      // A response answered through chat is never in the background: it finished before its id was known.
      throw new GatewayError(
        "invalid_request",
        `id: response '${request.params.id}' has finished; only a background response can be cancelled`,
      );
    }),
  );

  app.get<{ Params: IdParams; Querystring: { limit: number; order: "asc" | "desc"; after?: string } }>(
    "/v1/responses/:id/input_items",
    { schema: { params: ID, querystring: LIST_QUERY } },
    (request, reply) =>
      storedOrForwarded(forward, request, reply, "/input_items", async () => {
        const { id } = request.params;
        const record = await conversations.get(identityOf(request).workspaceId, id);
        const items = record.input.map((item, i) => ({ id: `${id}_input_${i}`, ...item }));
        if (request.query.order === "desc") items.reverse();
        const start = request.query.after === undefined ? 0 : items.findIndex((item) => item.id === request.query.after) + 1;
        const page = items.slice(start, start + request.query.limit);
        return {
          object: "list",
          data: page,
          first_id: page[0]?.id ?? null,
          last_id: page.at(-1)?.id ?? null,
          has_more: start + page.length < items.length,
        };
      }),
  );
}
