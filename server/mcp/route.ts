/**
 * `/v1/mcp/{server}`: the HTTP adapter of the MCP gateway, and nothing more. The body is read as
 * text (JSON-RPC is parsed by the gateway, so a bad message is a JSON-RPC error, not the inference
 * routes' envelope), the key's workspace must see the server, and the request is handed to
 * `McpGateway.handle` with the raw request and response. Errors met before that (a missing key, a
 * body over the limit, a wrong content type) are JSON-RPC errors too, with their status.
 */
import type { FastifyInstance } from "fastify";
import { identityOf } from "../request/open.js";
import { describeError } from "../describe-error.js";
import { REQUEST_ID_HEADER } from "../logs/process-log.js";
import { type McpGateway, writeRefusal } from "./gateway.js";
import { McpMessageError, RPC } from "./jsonrpc.js";

/** Where MCP servers are served. */
export const MCP_ROUTE = "/v1/mcp/:server";

/** Registers the MCP route in `scope`, an encapsulated scope whose requests already carry a verified key. */
export function mcpRoutes(scope: FastifyInstance, gateway: McpGateway, bodyLimit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(["application/json"], { parseAs: "string", bodyLimit }, (_request, body, done) => done(null, body));
  scope.setErrorHandler((error, request, reply) => {
    const { status, code, message } = describeError(error, bodyLimit);
    if (status >= 500) request.log.error({ err: error }, "MCP request failed");
    if (reply.sent || reply.raw.headersSent) return;
    reply.hijack();
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    const rpcCode =
      status === 413 || status === 415 || status === 400 ? RPC.invalidRequest : status === 502 ? RPC.upstream : RPC.transport;
    writeRefusal(reply.raw, new McpMessageError(rpcCode, message, code ?? "mcp_invalid_message", status));
  });
  for (const method of ["GET", "POST", "DELETE"] as const) {
    scope.route<{ Params: { server: string } }>({
      method,
      url: MCP_ROUTE,
      handler: async (request, reply) => {
        const identity = identityOf(request);
        const server = await gateway.server(request.params.server, identity);
        reply.hijack();
        reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
        if (!server) {
          // Another workspace's server and no server at all are answered alike.
          return writeRefusal(
            reply.raw,
            new McpMessageError(
              RPC.transport,
              `no MCP server "${request.params.server}" is registered for this key's workspace`,
              "mcp_server_not_found",
            ),
          );
        }
        try {
          await gateway.handle({
            method,
            server,
            identity,
            requestId: request.id,
            ...(typeof request.body === "string" && { body: request.body }),
            req: request.raw,
            res: reply.raw,
          });
        } catch (error) {
          request.log.error({ err: error }, "MCP request failed");
          writeRefusal(
            reply.raw,
            new McpMessageError(
              RPC.internalError,
              "guardgate failed to handle the request; the error is in its log",
              "internal_error",
            ),
          );
        }
      },
    });
  }
}
