/**
 * What the process log says of each request: one access line, and a warn line when it went wrong
 * in a way an operator acts on. Both name the request by its `x-gateway-request-id` (`reqId`, the
 * request log's id too), so an operator can go from one log to the other; a client's own
 * `x-request-id` is echoed beside it on the access line, so the client's logs join as well.
 */
import { type FastifyReply, type FastifyRequest, LogController } from "fastify";
import type { GuardrailResult } from "../../core/index.js";
import { HEADER } from "../gateway-headers.js";
import { requestId } from "./log-id.js";
import { failedUpstream, type RequestLogRecord } from "./record.js";
import type { RequestLogSink } from "./sink.js";

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

// The process log's warn line for a request that went wrong in a way an operator acts on: a
// guardrail denied it, a check errored or ran out of time, or an upstream failed with a 5xx (or
// could not be reached or read). The line names the request (`reqId`, as on its access line), the
// guardrails, checks and providers involved, and statuses and error names; never a body, a check's
// data or message, or a credential, so it may go wherever the process log goes.

/** Where warn lines go (fastify's pino logger). */
export interface WarnLogger {
  warn(fields: object, message: string): void;
}

/** Longest id written: inline guardrail ids are the caller's own, of any length. */
const ID_MAX = 128;

function id(value: string): string {
  return value.length > ID_MAX ? `${value.slice(0, ID_MAX)}…` : value;
}

interface CheckProblem {
  side: "input" | "output";
  guardrail: string;
  check: string;
  /** The error's name (`TimeoutError`, `SyntaxError`, …); its message may quote the text checked. */
  error: string;
}

/** The warn line a record is worth, or undefined when nothing in it needs an operator. */
export function recordWarning(record: RequestLogRecord): { fields: Record<string, unknown>; message: string } | undefined {
  const denied: Array<{ side: "input" | "output"; guardrail: string; checks: string[] }> = [];
  const checkErrors: CheckProblem[] = [];
  const sides = [
    ["input", record.hook_results?.before_request_hooks],
    ["output", record.hook_results?.after_request_hooks],
  ] as const;
  const stopped = new Set(record.stream_stop?.guardrails ?? []);
  const refused = record.status === 446 || record.stream_output_denied === true;
  for (const [side, results] of sides) {
    for (const result of (results ?? []) as GuardrailResult[]) {
      if (!result.verdict && result.deny && !result.async && (refused || stopped.has(result.id)))
        denied.push({ side, guardrail: id(result.id), checks: result.checks.filter((c) => !c.verdict).map((c) => id(c.id)) });
      for (const check of result.checks ?? []) {
        if (check.error === undefined) continue;
        const name = typeof check.error === "object" ? (check.error?.name ?? "Error") : "Error";
        checkErrors.push({ side, guardrail: id(result.id), check: id(check.id), error: name });
      }
    }
  }
  const upstream = (record.attempts ?? [])
    .filter((attempt) => failedUpstream(attempt) && attempt.status >= 500)
    .map((attempt) => ({
      target: attempt.target,
      ...(attempt.provider && { provider: attempt.provider }),
      status: attempt.status,
      ...(attempt.error && { error: attempt.error.code }),
    }));
  if (!denied.length && !checkErrors.length && !upstream.length) return undefined;

  const parts: string[] = [];
  if (denied.length) parts.push(`denied by ${denied.map((d) => `${d.side} guardrail ${d.guardrail}`).join(", ")}`);
  const timeouts = checkErrors.filter((c) => c.error === "TimeoutError");
  const errors = checkErrors.filter((c) => c.error !== "TimeoutError");
  if (timeouts.length) parts.push(`check timed out: ${timeouts.map((c) => `${c.check} in ${c.guardrail}`).join(", ")}`);
  if (errors.length) parts.push(`check errored: ${errors.map((c) => `${c.check} in ${c.guardrail} (${c.error})`).join(", ")}`);
  if (upstream.length) {
    parts.push(
      `upstream failed: ${upstream.map((u) => `${u.provider ?? "?"} ${u.status}${u.error ? ` ${u.error}` : ""}`).join(", ")}`,
    );
  }
  const fields: Record<string, unknown> = {
    reqId: record.id,
    route: record.route,
    status: record.status,
    workspace_id: record.workspace_id,
    api_key_id: record.api_key_id,
    ...(record.config_id && { config_id: record.config_id }),
    ...(denied.length && { denied }),
    ...(checkErrors.length && { check_errors: checkErrors }),
    ...(upstream.length && { upstream_errors: upstream }),
  };
  return { fields, message: `request ${record.status}: ${parts.join("; ")}` };
}

/** A request log sink that writes each record's warn line, if it has one, before handing it on. */
export class WarningLogSink implements RequestLogSink {
  constructor(
    private readonly inner: RequestLogSink,
    private readonly logger: WarnLogger,
  ) {}

  write(record: RequestLogRecord, options?: { committed?: boolean }): Promise<void> {
    const warning = recordWarning(record);
    if (warning) this.logger.warn(warning.fields, warning.message);
    return this.inner.write(record, options);
  }
}
