/**
 * Reads a webhook's answer: `{verdict, data?, transformedData?: {request: {json}, response:
 * {json}}}`. Anything else is an error, never a silent pass or fail. A transformed body replaces
 * the original only when it keeps the request type's shape: an object whose evaluated text still
 * has its slots (core/content.ts), with the same `model` and `stream` on a request, so a webhook
 * edits content and cannot reroute the request.
 */
import stringify from "safe-stable-stringify";
import { type CoreErrorInfo, GuardgateError, locateText, type RequestType, type Side } from "../../../core/index.js";
import { isObject } from "../../../core/internal.js";

/** Stable codes of webhook answers that cannot be used (docs/errors.md is generated from this table). */
export const WEBHOOK_ERRORS = {
  webhook_status: { meaning: "the webhook answered with a status that is not 2xx, or redirected" },
  webhook_answer_invalid: { meaning: "the answer is not a JSON object with a boolean verdict (and an object data, if any)" },
  webhook_transform_invalid: { meaning: "transformedData does not keep the request type's shape, or changes model or stream" },
} as const satisfies Record<string, CoreErrorInfo>;

/** A code of WebhookError. */
export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS;

/** A webhook answer that cannot be used. */
export class WebhookError extends GuardgateError {
  declare readonly code: WebhookErrorCode;
}

/** A usable webhook answer. */
export interface WebhookAnswer {
  verdict: boolean;
  data: Record<string, unknown> | null;
  /** The new body of the evaluated side, when the webhook changed it. */
  transformed?: unknown;
}

/** What the answer is read against. */
export interface AnswerContext {
  side: Side;
  requestType: RequestType;
  /** The body of the evaluated side as it was sent. */
  original: unknown;
}

function invalid(message: string): WebhookError {
  return new WebhookError("webhook_answer_invalid", `the webhook's answer ${message}`);
}

// Request fields that choose where and how a request goes, not what it says.
const ROUTING_FIELDS = ["model", "stream"] as const;

/** The replacement body, validated; undefined when the webhook changed nothing. */
function acceptTransform(json: unknown, context: AnswerContext): unknown {
  const what = context.side === "input" ? "request" : "response";
  const refuse = (problem: string) =>
    new WebhookError("webhook_transform_invalid", `the webhook's transformed ${what} ${problem}; nothing was replaced`);
  if (!isObject(json)) throw refuse("is not a JSON object");
  const before = locateText(context.side, context.requestType, context.original);
  const after = locateText(context.side, context.requestType, json);
  if (before.slots.length > 0 && after.slots.length === 0) {
    throw refuse(`no longer has the shape of a ${context.requestType} ${what} (its text is gone)`);
  }
  if (context.side === "input" && isObject(context.original)) {
    for (const field of ROUTING_FIELDS) {
      if (stringify(json[field]) !== stringify(context.original[field]))
        throw refuse(`changes "${field}", which a guardrail may not`);
    }
  }
  return stringify(json) === stringify(context.original) ? undefined : json;
}

/** Parses and validates the answer body; throws a WebhookError when it cannot be used. */
export function readWebhookAnswer(body: Buffer, context: AnswerContext): WebhookAnswer {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString("utf8"));
  } catch {
    throw invalid("is not JSON");
  }
  if (!isObject(answer)) throw invalid("is not a JSON object");
  if (typeof answer.verdict !== "boolean") {
    throw invalid(answer.verdict === undefined ? "has no verdict" : "has a verdict that is not a boolean (true or false)");
  }
  const data = answer.data ?? null;
  if (data !== null && !isObject(data)) throw invalid("has data that is not an object");
  const result: WebhookAnswer = { verdict: answer.verdict, data };
  const transformedData = answer.transformedData;
  if (transformedData === undefined || transformedData === null) return result;
  if (!isObject(transformedData)) throw invalid("has transformedData that is not an object");
  // Only the evaluated side can change; a webhook on the input side cannot rewrite a response.
  const part = transformedData[context.side === "input" ? "request" : "response"];
  if (part === undefined || part === null) return result;
  if (!isObject(part))
    throw invalid(`has transformedData.${context.side === "input" ? "request" : "response"} that is not an object`);
  if (part.json === undefined || part.json === null) return result;
  const transformed = acceptTransform(part.json, context);
  if (transformed !== undefined) result.transformed = transformed;
  return result;
}
