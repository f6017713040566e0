/**
 * The call every Javelin check makes: one guardrail's `apply` endpoint
 * (`POST https://<domain>/v1/guardrail/<guardrail>/apply`) with the text, returning that
 * guardrail's assessment.
 */
import { type CheckContext, type JsonSchema } from "../../core/index.js";
import {
  BASE_URL_CREDENTIAL,
  callPartner,
  optionalCredential,
  type PartnerService,
  partnerBaseUrl,
  requiredCredential,
  requiredField,
} from "../partner-kit/index.js";

export const JAVELIN: PartnerService = { id: "javelin", name: "Javelin" };
const DEFAULT_DOMAIN = "api-dev.javelin.live";

/** Credentials of the Javelin plugin (the peer gateway's names). */
export const JAVELIN_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "A Javelin API key." },
    domain: { type: "string", minLength: 1, description: `The Javelin API's host (${DEFAULT_DOMAIN} when absent).` },
    application: { type: "string", minLength: 1, description: "An application name, for its policy-specific guardrails." },
    baseURL: BASE_URL_CREDENTIAL,
  },
  required: ["apiKey"],
};

/** Applies one Javelin guardrail to the text; returns its assessment and the call's latency. */
export async function applyGuardrail(
  context: CheckContext,
  guardrail: string,
  config: Record<string, unknown>,
  timeout: number,
): Promise<{ assessment: Record<string, unknown>; latencyMs: number; requestId: string | undefined }> {
  const key = requiredCredential(JAVELIN, context.credentials, ["apiKey"]);
  const application = optionalCredential(context.credentials, ["application"]);
  const domain = optionalCredential(context.credentials, ["domain"]) ?? DEFAULT_DOMAIN;
  const answer = await callPartner(context, JAVELIN, {
    url: `${partnerBaseUrl(JAVELIN, context.credentials, `https://${domain}`)}/v1/guardrail/${guardrail}/apply`,
    headers: { "x-javelin-apikey": key, ...(application && { "x-javelin-application": application }) },
    json: { input: { text: context.text }, config, metadata: {} },
    timeout,
  });
  return {
    assessment: requiredField(JAVELIN, answer.body, ["assessments", 0, guardrail], "object"),
    latencyMs: answer.latencyMs,
    requestId: answer.requestId,
  };
}
