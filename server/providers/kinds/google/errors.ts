/**
 * Google's API errors (`{"error": {"code", "message", "status", "details"}}`, the
 * google.rpc.Status shape both the Gemini API and Vertex AI answer with) in the gateway's terms:
 * RESOURCE_EXHAUSTED a 429 whose `retry-after` comes from the RetryInfo detail, UNAVAILABLE a
 * 503, an INVALID_ARGUMENT about the token limit `context_length_exceeded`, an API key the Gemini
 * API calls invalid a 401, so retry and fallback treat Google like any provider.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isObject } from "../../../../core/internal.js";
import type { Json, NativeError } from "../../kind.js";

/** The status and code of each google.rpc.Code name. */
const BY_STATUS: Readonly<Record<string, { status: number; code: string }>> = {
  INVALID_ARGUMENT: { status: 400, code: "invalid_argument" },
  FAILED_PRECONDITION: { status: 400, code: "failed_precondition" },
  OUT_OF_RANGE: { status: 400, code: "out_of_range" },
  UNAUTHENTICATED: { status: 401, code: "unauthenticated" },
  PERMISSION_DENIED: { status: 403, code: "permission_denied" },
  NOT_FOUND: { status: 404, code: "not_found" },
  ABORTED: { status: 409, code: "aborted" },
  RESOURCE_EXHAUSTED: { status: 429, code: "rate_limited" },
  CANCELLED: { status: 499, code: "cancelled" },
  INTERNAL: { status: 500, code: "internal" },
  UNKNOWN: { status: 500, code: "unknown" },
  UNAVAILABLE: { status: 503, code: "unavailable" },
  DEADLINE_EXCEEDED: { status: 504, code: "deadline_exceeded" },
};

/** Messages of an INVALID_ARGUMENT about a prompt longer than the model takes. */
const TOO_LONG = /token count|exceeds the maximum number of tokens|context (window|length)|too many tokens|input is too long/i;

/** Seconds from a google.protobuf.Duration (`"37s"`, `"0.5s"`), rounded up. */
function seconds(duration: unknown): string | undefined {
  const match = typeof duration === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(duration) : null;
  return match ? String(Math.max(1, Math.ceil(Number(match[1])))) : undefined;
}

function detailsOf(error: Json): Json[] {
  return Array.isArray(error.details) ? (error.details as unknown[]).filter(isObject) : [];
}

function typed(details: Json[], type: string): Json | undefined {
  return details.find((d) => typeof d["@type"] === "string" && d["@type"].endsWith(`/${type}`));
}

/** A Google error answer as the gateway answers it. */
export function googleError(status: number, text: string, headers: IncomingHttpHeaders, provider: string): NativeError {
  let error: Json | undefined;
  try {
    const body = JSON.parse(text) as unknown;
    // A stream's error comes as a one-element array on some Google endpoints.
    const first = Array.isArray(body) ? (body[0] as unknown) : body;
    if (isObject(first) && isObject(first.error)) error = first.error;
  } catch {
    // Not Google's JSON: said below with the status alone.
  }
  const name = typeof error?.status === "string" ? error.status : undefined;
  const mapped = (name && BY_STATUS[name]) || undefined;
  const message = typeof error?.message === "string" && error.message ? error.message : `${provider} answered ${status}`;
  const details = error ? detailsOf(error) : [];
  const result: NativeError = {
    status: mapped?.status ?? status,
    code: mapped?.code ?? null,
    message: `${provider}: ${message}`,
  };
  const reason = typed(details, "google.rpc.ErrorInfo")?.reason;
  if (reason === "API_KEY_INVALID") Object.assign(result, { status: 401, code: "invalid_api_key" });
  else if (result.status === 400 && TOO_LONG.test(message)) result.code = "context_length_exceeded";
  if (result.status === 429 || result.status === 503) {
    const retryAfter = seconds(typed(details, "google.rpc.RetryInfo")?.retryDelay) ?? headerValue(headers["retry-after"]);
    if (retryAfter !== undefined) result.retryAfter = retryAfter;
  }
  return result;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
