/**
 * An Anthropic error answer (`{ type: "error", error: { type, message } }`) as the client's format
 * will say it: overload (529) as a 503 that keeps its type, so OpenAI clients and retry configs
 * see an overloaded server; a rate limit with its `retry-after`; a prompt too long for the model
 * as `context_length_exceeded`, the code OpenAI clients know.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { NativeError } from "../../kind.js";
import { isJson } from "../../translate.js";
import { retryAfterOf } from "../openai/errors.js";

export function anthropicError(status: number, text: string, headers: IncomingHttpHeaders): NativeError {
  let error: Record<string, unknown> = {};
  try {
    const body = JSON.parse(text) as unknown;
    if (isJson(body) && isJson(body.error)) error = body.error;
  } catch {
    // A body that is not JSON (a proxy's page) is described below.
  }
  const type = typeof error.type === "string" ? error.type : null;
  const message =
    typeof error.message === "string" && error.message
      ? error.message
      : `the provider answered ${status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  const retryAfter = retryAfterOf(headers);
  const out: NativeError = { status, code: type, message, ...(retryAfter !== undefined && { retryAfter }) };
  if (status === 529 || type === "overloaded_error") return { ...out, status: 503, type: "overloaded_error" };
  if (type === "invalid_request_error" && /prompt is too long|context (window|length)/i.test(message)) {
    return { ...out, code: "context_length_exceeded" };
  }
  return out;
}
