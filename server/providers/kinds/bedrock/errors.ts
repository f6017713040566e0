/**
 * Bedrock's errors as the client's format says them (Amazon Bedrock API Reference, Common Errors
 * and each operation's Errors): a `{"message": ...}` body whose type is the `x-amzn-errortype`
 * header (`ThrottlingException:http://internal.amazon.com/...`). Throttling is a 429, an overloaded
 * or not yet ready model a 503, a prompt over the model's context a 400
 * `context_length_exceeded`, refused credentials a 401 and a refused permission a 403, so retry and
 * fallback treat Bedrock like any provider.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { NativeError } from "../../kind.js";

/** The first paragraph of what AWS says, bounded: enough to act on, nothing echoed at length. */
export function awsMessage(message: unknown): string {
  const text = typeof message === "string" ? message : "";
  const first = text.split(/\n\s*\n/, 1)[0] ?? "";
  return first.length > 500 ? `${first.slice(0, 500)}…` : first;
}

interface Mapping {
  status: number;
  code: string;
}

const BY_TYPE: Readonly<Record<string, Mapping>> = {
  ThrottlingException: { status: 429, code: "rate_limited" },
  ServiceQuotaExceededException: { status: 429, code: "rate_limited" },
  ServiceUnavailableException: { status: 503, code: "overloaded" },
  ModelNotReadyException: { status: 503, code: "model_not_ready" },
  InternalServerException: { status: 500, code: "server_error" },
  ModelTimeoutException: { status: 504, code: "upstream_timeout" },
  ModelErrorException: { status: 502, code: "model_error" },
  ValidationException: { status: 400, code: "invalid_request" },
  ResourceNotFoundException: { status: 404, code: "model_not_found" },
  AccessDeniedException: { status: 403, code: "permission_denied" },
  // The credentials themselves: unknown key, bad signature, expired or invalid session token.
  UnrecognizedClientException: { status: 401, code: "authentication_failed" },
  InvalidSignatureException: { status: 401, code: "authentication_failed" },
  IncompleteSignatureException: { status: 401, code: "authentication_failed" },
  MissingAuthenticationTokenException: { status: 401, code: "authentication_failed" },
  ExpiredTokenException: { status: 401, code: "authentication_failed" },
};

/** What Bedrock says when a prompt does not fit the model's context. */
const CONTEXT_LENGTH =
  /too long|context (length|window)|too many (input )?tokens|maximum (context|input|prompt)|exceeds? the max/i;

function errorType(headers: IncomingHttpHeaders, body: Record<string, unknown>): string | undefined {
  const header = headers["x-amzn-errortype"];
  const value = (Array.isArray(header) ? header[0] : header) ?? (typeof body.__type === "string" ? body.__type : undefined);
  // `Type:namespace` in the header, `namespace#Type` in a body's `__type`.
  return value?.split(":")[0]?.split("#").at(-1);
}

function bodyOf(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A non-2xx Bedrock answer. Only the message's first paragraph is kept: the rest of a signature
 * error is AWS's canonical request, which lists the signed headers with their values.
 */
export function bedrockError(status: number, text: string, headers: IncomingHttpHeaders): NativeError {
  const body = bodyOf(text);
  const type = errorType(headers, body);
  const said = awsMessage(body.message ?? body.Message) || `HTTP ${status}`;
  const mapping = (type && BY_TYPE[type]) || { status, code: type ?? null };
  const code = mapping.code === "invalid_request" && CONTEXT_LENGTH.test(said) ? "context_length_exceeded" : mapping.code;
  const error: NativeError = {
    status: mapping.status,
    code: code as string | null,
    message: `Amazon Bedrock${type ? ` ${type}` : ""}: ${said}`,
  };
  const retryAfter = headers["retry-after"];
  if (typeof retryAfter === "string" && (error.status === 429 || error.status === 503)) error.retryAfter = retryAfter;
  return error;
}
