/**
 * What checks that call out send about an evaluation: the guardrail, the side, the request type,
 * provider, model, metadata, the evaluated text and the bodies. Never the caller's credentials:
 * the check's own credentials are not part of it, and request headers (sent only where asked)
 * lose every header that may carry one.
 */
import type { CheckContext, Side } from "../../../core/index.js";
import { isCredentialHeader } from "../../../core/internal.js";

/** The JSON body a webhook or log sink receives. */
export interface EvaluationPayload {
  guardrailId: string;
  side: Side;
  /** The peer gateway's name for the side, for receivers written for it. */
  eventType: "beforeRequestHook" | "afterRequestHook";
  requestType: string;
  provider: string | null;
  model: string | null;
  /** The evaluated text of this side. */
  text: string;
  request: { json: unknown; text: string };
  response: { json: unknown; text: string };
  metadata: Record<string, string>;
  /** Request headers without credentials; only when the caller asked for them. */
  headers?: Record<string, string>;
}

export { isCredentialHeader };

/** The headers without any that may carry a credential. */
export function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!isCredentialHeader(name)) kept[name.toLowerCase()] = value;
  return kept;
}

/** The payload for one evaluation. */
export function evaluationPayload(context: CheckContext, options: { headers: boolean }): EvaluationPayload {
  const input = context.side === "input";
  const payload: EvaluationPayload = {
    guardrailId: context.guardrailId,
    side: context.side,
    eventType: input ? "beforeRequestHook" : "afterRequestHook",
    requestType: context.requestType,
    provider: context.provider ?? null,
    model: context.model ?? null,
    text: context.text,
    request: { json: context.request ?? null, text: input ? context.text : "" },
    response: { json: context.response ?? null, text: input ? "" : context.text },
    metadata: context.metadata,
  };
  if (options.headers) payload.headers = withoutCredentials(context.headers);
  return payload;
}
