/** Parameters every partner check accepts, with the peer gateway's names. */
import type { DataFieldDoc, JsonSchema } from "../../core/index.js";

/** Default time limit of a partner call, in milliseconds (the peer gateway's). */
export const DEFAULT_PARTNER_TIMEOUT = 5000;

/** Schema of the `timeout` parameter: the time limit of the call, which the runner enforces too. */
export const TIMEOUT_PARAMETER: JsonSchema = {
  type: "integer",
  minimum: 1,
  maximum: 60_000,
  default: DEFAULT_PARTNER_TIMEOUT,
  description: "Time limit of the call to the service, in milliseconds.",
};

/** Schema of the `redact` parameter of checks whose service masks what it finds. */
export const REDACT_PARAMETER: JsonSchema = {
  type: "boolean",
  default: false,
  description:
    "Replace what the service found with its mask and let the request or response through, when masking is all the service asked for.",
};

/** Documentation of the `data` fields every partner check returns. */
export const PARTNER_DATA: Record<string, DataFieldDoc> = {
  verdict: { type: "boolean", description: "The check's verdict." },
  explanation: { type: "string", description: "What the service decided, in words." },
  latencyMs: { type: "number", description: "How long the call to the service took, in milliseconds." },
  requestId: { type: "string", description: "The service's id of the call, when its answer carries one." },
};

/**
 * The notes of a partner check: what is specific to it, then what every partner check shares
 * (credentials, endpoint override, failures, network policy).
 */
export function partnerNotes(serviceName: string, pluginId: string, specific: string): string {
  return `${specific.trim()}

**Credentials** come from the service's ${pluginId} integration for the request's workspace, or from
the check's \`parameters.credentials\`, which win. They are sent to ${serviceName} only and never
appear in results, logs or errors. \`baseURL\` in the credentials replaces the default endpoint.

**Failures are errors, never a pass.** A refused key (401, 403), rate limiting (429, with the
service's \`retry-after\`), a failure of the service (5xx), no answer within \`timeout\`, an answer
that is not JSON or lacks a field the verdict needs: each is a check error naming ${serviceName}
and what happened, and \`failOnError\` decides whether the guardrail fails.

**Network.** One call per check and phase, through the gateway's outbound policy (no redirects,
an answer size limit, private and loopback hosts only when the gateway allows them), over a
kept-alive connection to the service.`;
}
