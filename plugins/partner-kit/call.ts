/**
 * The one outbound call a partner check makes, through core/net (time limit, size cap, no
 * redirects, the gateway's address policy, a keep-alive connection pool per origin), with every
 * way it can fail turned into a PartnerError that names the service and what happened.
 */
import { OutboundError } from "../../core/index.js";
import { type CheckContext, type Resolver } from "../../core/index.js";
import { outboundRequest, type OutboundResponse } from "../../core/index.js";
import { PartnerError } from "./errors.js";

/** A third-party guardrail service, as messages and results name it. */
export interface PartnerService {
  /** The plugin id (`lakera`). */
  id: string;
  /** The service's product name (`Lakera Guard`), used in every message. */
  name: string;
}

/** One call to a partner service. */
export interface PartnerRequest {
  url: string | URL;
  method?: "GET" | "POST";
  /** Headers of the call, credentials included: they are sent, never echoed. */
  headers?: Record<string, string>;
  /** A JSON body, serialised here; `content-type: application/json` is added. */
  json?: unknown;
  /** A body already serialised, for calls whose signature covers its exact bytes. */
  body?: string;
  /** Time limit of the whole call, in milliseconds. */
  timeout: number;
  /** Largest answer accepted; 1 MiB unless said otherwise. */
  maxResponseBytes?: number;
  /** Resolves host names; tests inject their own. */
  resolver?: Resolver;
}

/** A successful (2xx) answer of a partner service. */
export interface PartnerAnswer {
  status: number;
  /** The answer's JSON. */
  body: unknown;
  /** How long the call took, in milliseconds (connect, answer and body). */
  latencyMs: number;
  /** The service's id of this call, when its answer carries one in a header. */
  requestId?: string;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
// Headers in which services return their own id of a call: kept so a vendor's support can find it.
const REQUEST_ID_HEADERS = ["x-request-id", "apim-request-id", "x-amzn-requestid", "request-id", "x-ms-request-id"];
// How much of a vendor's error message a check error quotes.
const MESSAGE_LIMIT = 200;

function milliseconds(start: number): number {
  return Number((performance.now() - start).toFixed(1));
}

function header(response: OutboundResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Seconds a `retry-after` header asks for: a number of seconds or an HTTP date. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The message of a vendor's error body, in one line, shortened; empty when it has none. */
function vendorMessage(body: Buffer): string {
  let text = body.toString("utf8").trim();
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const error = parsed.error;
    const candidates = [
      typeof error === "object" && error !== null ? (error as Record<string, unknown>).message : error,
      parsed.message,
      parsed.Message,
      parsed.detail,
      parsed.summary,
      typeof error === "object" && error !== null ? (error as Record<string, unknown>).code : undefined,
    ];
    const found = candidates.find((c) => typeof c === "string" && c.trim() !== "");
    text = typeof found === "string" ? found : "";
  } catch {
    // Not JSON: an HTML error page says nothing useful; a short plain text may.
    if (/^\s*</.test(text)) text = "";
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MESSAGE_LIMIT ? `${line.slice(0, MESSAGE_LIMIT)}…` : line;
}

function statusError(service: PartnerService, response: OutboundResponse, latencyMs: number): PartnerError {
  const status = response.status;
  const said = vendorMessage(response.body);
  const quote = said ? `: ${said}` : "";
  const at = `HTTP ${status}${quote} (after ${latencyMs} ms)`;
  if (status === 401) {
    return new PartnerError("partner_unauthorized", `${service.name} refused the credentials, ${at}`, { status });
  }
  if (status === 403) {
    return new PartnerError("partner_forbidden", `${service.name} denied access with these credentials, ${at}`, { status });
  }
  if (status === 429) {
    const retryAfter = retryAfterSeconds(header(response, "retry-after"));
    const wait = retryAfter === undefined ? "" : `; retry after ${retryAfter} s`;
    return new PartnerError("partner_rate_limited", `${service.name} is rate limiting this key, ${at}${wait}`, {
      status,
      ...(retryAfter !== undefined && { retryAfter }),
    });
  }
  if (status >= 500) return new PartnerError("partner_unavailable", `${service.name} failed, ${at}`, { status });
  if (status >= 300 && status < 400) {
    return new PartnerError("partner_status", `${service.name} answered with a redirect, which is not followed, ${at}`, {
      status,
    });
  }
  return new PartnerError("partner_status", `${service.name} rejected the call, ${at}`, { status });
}

/**
 * Makes the call and returns the parsed answer of a 2xx status. Throws a PartnerError otherwise:
 * 401, 403, 429 (with `retry-after`), 5xx, any other status, time-out, refused address or
 * network failure, and an answer that is not JSON.
 */
export async function callPartner(
  context: Pick<CheckContext, "signal" | "settings">,
  service: PartnerService,
  request: PartnerRequest,
): Promise<PartnerAnswer> {
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  let body = request.body;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers["content-type"] ??= "application/json";
  }
  // The check's time limit is the same number (the runner takes `timeout` from the parameters):
  // the call stops a little earlier, so a slow service is reported as the service's time-out.
  const limit = Math.max(1, request.timeout - Math.min(100, Math.floor(request.timeout / 10)));
  const start = performance.now();
  let response: OutboundResponse;
  try {
    response = await outboundRequest(request.url, {
      method: request.method ?? "POST",
      headers,
      ...(body !== undefined && { body }),
      timeout: limit,
      signal: context.signal,
      maxResponseBytes: request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      settings: context.settings,
      ...(request.resolver && { resolver: request.resolver }),
    });
  } catch (error) {
    if (error instanceof OutboundError && error.code === "outbound_timeout") {
      throw new PartnerError("partner_timeout", `${service.name} did not answer within the time limit of ${request.timeout} ms`, {
        cause: error,
      });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new PartnerError("partner_network", `${service.name} could not be called: ${reason}`, { cause: error });
  }
  const latencyMs = milliseconds(start);
  if (response.status < 200 || response.status >= 300) throw statusError(service, response, latencyMs);
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString("utf8"));
  } catch {
    throw new PartnerError(
      "partner_answer_invalid",
      `${service.name} answered HTTP ${response.status} with a body that is not JSON (after ${latencyMs} ms)`,
      { status: response.status },
    );
  }
  const requestId = REQUEST_ID_HEADERS.map((name) => header(response, name)).find((v) => typeof v === "string" && v !== "");
  return { status: response.status, body: parsed, latencyMs, ...(requestId !== undefined && { requestId }) };
}

/** The facts of a call every partner check keeps in `data`: its latency, and the service's id of it. */
export function callFacts(answer: PartnerAnswer): { latencyMs: number; requestId?: string } {
  return { latencyMs: answer.latencyMs, ...(answer.requestId !== undefined && { requestId: answer.requestId }) };
}
