/**
 * An OpenAI-format provider's error answer (`{ error: { message, type, param, code } }`) as the
 * client's format will say it: the status is kept, so retry and fallback see what the provider
 * said; the code is the provider's (`context_length_exceeded`, `rate_limit_exceeded`, …), and a
 * rate limit carries its `retry-after`.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { NativeError } from "../../kind.js";

/** The `error` object of an error body, when the body has one. */
function errorObject(text: string): { message?: unknown; type?: unknown; code?: unknown } | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return body.error && typeof body.error === "object" ? body.error : undefined;
  } catch {
    return undefined;
  }
}

/** The `retry-after` header as one string, when the provider sent it. */
export function retryAfterOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["retry-after"];
  return Array.isArray(value) ? value[0] : value;
}

/** Maps an OpenAI-format error answer. */
export function openAiError(status: number, text: string, headers: IncomingHttpHeaders): NativeError {
  const error = errorObject(text);
  const message =
    typeof error?.message === "string" && error.message
      ? error.message
      : `the provider answered ${status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  const code = typeof error?.code === "string" ? error.code : typeof error?.type === "string" ? error.type : null;
  const retryAfter = retryAfterOf(headers);
  return { status, code, message, ...(retryAfter !== undefined && { retryAfter }) };
}
