/**
 * What the Pangea checks share: the credentials (a token and the account's domain, or a base URL
 * that replaces the service hosts), where each service lives, and the Pangea response envelope,
 * whose `status` must be "Success" for `result` to mean anything.
 */
import { type CheckContext, type JsonSchema } from "../../core/index.js";
import {
  BASE_URL_CREDENTIAL,
  callPartner,
  optionalCredential,
  PartnerError,
  type PartnerService,
  partnerBaseUrl,
  requiredCredential,
  requiredField,
} from "../partner-kit/index.js";

export const PANGEA: PartnerService = { id: "pangea", name: "Pangea" };

/** Credentials of the Pangea plugin (the peer gateway's names). */
export const PANGEA_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "The service token (pts_…) with access to AI Guard and Redact." },
    domain: {
      type: "string",
      minLength: 1,
      description: "The account's domain, cloud and region included (aws.us.pangea.cloud); services live at <service>.<domain>.",
    },
    baseURL: BASE_URL_CREDENTIAL,
  },
  required: ["apiKey"],
  // One of the two says where the services are (restated so strict schema checking sees them).
  anyOf: [
    { properties: { domain: { type: "string" } }, required: ["domain"] },
    { properties: { baseURL: { type: "string" } }, required: ["baseURL"] },
  ],
};

/** The `result` of a successful Pangea call, with the envelope's fields kept for `data`. */
export interface PangeaResult {
  result: Record<string, unknown>;
  requestId: string | undefined;
  summary: string | undefined;
  latencyMs: number;
}

/** Posts to a Pangea service (`ai-guard`, `redact`) and returns the envelope's result. */
export async function callPangea(
  context: CheckContext,
  service: string,
  path: string,
  json: unknown,
  timeout: number,
): Promise<PangeaResult> {
  const credentials = context.credentials;
  const token = requiredCredential(PANGEA, credentials, ["apiKey"]);
  const fallback = optionalCredential(credentials, ["baseURL"])
    ? ""
    : `https://${service}.${requiredCredential(PANGEA, credentials, ["domain"])}`;
  const answer = await callPartner(context, PANGEA, {
    url: `${partnerBaseUrl(PANGEA, credentials, fallback)}${path}`,
    headers: { authorization: `Bearer ${token}` },
    json,
    timeout,
  });
  const status = requiredField(PANGEA, answer.body, ["status"], "string");
  const summary = (answer.body as { summary?: unknown }).summary;
  if (status !== "Success") {
    // A 202 "Accepted" means the result comes later, asynchronously: no verdict now.
    throw new PartnerError(
      "partner_status",
      `${PANGEA.name} answered status ${status}${typeof summary === "string" ? `: ${summary}` : ""}`,
      {
        status: answer.status,
      },
    );
  }
  const requestId = (answer.body as { request_id?: unknown }).request_id;
  return {
    result: requiredField(PANGEA, answer.body, ["result"], "object"),
    requestId: typeof requestId === "string" ? requestId : answer.requestId,
    summary: typeof summary === "string" ? summary : undefined,
    latencyMs: answer.latencyMs,
  };
}
