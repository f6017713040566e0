/**
 * The process log's line per request. Its `reqId` is the request's `x-gateway-request-id` (the
 * request log's id too), so an operator can go from one to the other; a client's own
 * `x-request-id` is echoed beside it, so the client's logs join as well.
 */
import { type FastifyReply, type FastifyRequest, LogController } from "fastify";
import { HEADER } from "../gateway-headers.js";
import { requestId } from "./log-id.js";

/** The answer header that names the request; the same id is the request log record's. */
export const REQUEST_ID_HEADER = HEADER.requestId;

/** The header a client names its own request by. */
const CLIENT_REQUEST_ID_HEADER = "x-request-id";

/** Longest client request id echoed; a longer one is cut (it is the client's, of any length). */
const CLIENT_ID_MAX = 128;

/** Fastify's `genReqId`: every request's id is a request-log id (time-ordered UUIDv7, log-id.ts). */
export function genReqId(): string {
  return requestId();
}

/** A client's `x-request-id`, printable and capped, when it sent one. */
function clientRequestId(request: FastifyRequest): string | undefined {
  const value = request.headers[CLIENT_REQUEST_ID_HEADER];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what is being removed
  return text.slice(0, CLIENT_ID_MAX).replace(/[\u0000-\u001f\u007f]/g, "");
}

/**
 * Routes a load balancer or a scraper asks every few seconds: their access lines are at debug
 * level, so they do not bury the requests at info (`--log-level debug` shows them).
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(["/health", "/ready", "/metrics"]);

/** Whether a request asked a probe route (its path, query left out). */
function isProbe(request: FastifyRequest): boolean {
  const url = request.url;
  const end = url.indexOf("?");
  return PROBE_PATHS.has(end === -1 ? url : url.slice(0, end));
}

/**
 * One access line per request, written once it is answered and naming the request too: fastify
 * writes two by default (on arrival and on answer), which cost a busy gateway as much as its checks.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const client = clientRequestId(request);
    const fields = {
      req: request,
      res: reply,
      responseTime: reply.elapsedTime,
      ...(client !== undefined && { clientRequestId: client }),
    };
    if (error) reply.log.error({ ...fields, err: error }, "request errored");
    else if (isProbe(request)) reply.log.debug(fields, "request completed");
    else reply.log.info(fields, "request completed");
  }
}
