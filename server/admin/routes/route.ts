/**
 * A small helper for admin routes: every route states its summary, tag, parameters, body and
 * answer schemas (which feed the OpenAPI document and validation) and the error answers it can
 * give, in one readable object.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errorSchema } from "../schemas.js";

type Schema = Record<string, unknown>;

/** One admin route. */
export interface AdminRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  summary: string;
  tag: string;
  params?: Record<string, Schema>;
  query?: Schema;
  body?: Schema;
  /** The success status and its schema (null for 204). */
  response: [number, Schema | null];
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

const ERRORS = [400, 401, 403, 404, 409];

/** Largest admin request body: records are small; a config with many inline guardrails fits easily. */
export const ADMIN_BODY_LIMIT = 1024 * 1024;

/** Registers a route with its schemas. */
export function route(scope: FastifyInstance, definition: AdminRoute): void {
  const [status, answer] = definition.response;
  const response: Record<number, Schema> = {};
  if (answer) response[status] = answer;
  else response[status] = { type: "null", description: "No content." };
  for (const code of ERRORS) response[code] = { ...errorSchema, description: "An error; `message` says what and where." };
  scope.route({
    method: definition.method,
    url: definition.url,
    bodyLimit: ADMIN_BODY_LIMIT,
    schema: {
      summary: definition.summary,
      tags: [definition.tag],
      security: [{ apiKey: [] }],
      ...(definition.params && {
        params: {
          type: "object",
          properties: definition.params,
          required: Object.keys(definition.params),
        },
      }),
      ...(definition.query && { querystring: definition.query }),
      ...(definition.body && { body: definition.body }),
      response,
    },
    handler: async (request, reply) => {
      const result = await definition.handler(request, reply);
      if (answer === null) return reply.code(status).send();
      return reply.code(status).send(result);
    },
  });
}

/** Path parameters of a request, typed as strings. */
export function params(request: FastifyRequest): Record<string, string> {
  return request.params as Record<string, string>;
}

/** The body of a request. */
export function body<T>(request: FastifyRequest): T {
  return request.body as T;
}

/** The query of a request. */
export function query<T>(request: FastifyRequest): T {
  return request.query as T;
}
