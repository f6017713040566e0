/**
 * What the Pangea checks share: the credentials (a token and the account's domain, or a base URL
 * that replaces the service hosts), where each service lives, and the Pangea response envelope,
 * whose `status` must be "Success" for `result` to mean anything.
 */
import type { CheckContext, JsonSchema } from "../../core/plugin-api.js";
import { callVendor, missingField, VendorError } from "../partner-call-draft.js";

export const VENDOR = "Pangea";

/** Credentials of the Pangea plugin. */
export const PANGEA_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "The service token (pts_…) with access to AI Guard and Redact." },
    domain: {
      type: "string",
      minLength: 1,
      description: "The account's domain, cloud and region included (aws.us.pangea.cloud); services live at <service>.<domain>.",
    },
    baseURL: {
      type: "string",
      format: "uri",
      description: "Replaces https://<service>.<domain> for every service: a private or proxied deployment.",
    },
  },
  required: ["apiKey"],
  anyOf: [{ required: ["domain"] }, { required: ["baseURL"] }],
};

interface PangeaCredentials {
  apiKey: string;
  domain?: string;
  baseURL?: string;
}

/** Where a Pangea service's endpoint is, from the credentials. */
function endpoint(credentials: PangeaCredentials, service: string, path: string): string {
  const base = credentials.baseURL ? credentials.baseURL.replace(/\/+$/, "") : `https://${service}.${credentials.domain}`;
  return `${base}${path}`;
}

/** The `result` of a successful Pangea call, with the envelope's fields kept for `data`. */
export interface PangeaResult {
  result: Record<string, unknown>;
  requestId: string | undefined;
  summary: string | undefined;
  latencyMs: number;
}

/** Posts to a Pangea service and returns the envelope's result; anything but "Success" is an error. */
export async function callPangea(context: CheckContext, service: string, path: string, body: unknown): Promise<PangeaResult> {
  const credentials = context.credentials as unknown as PangeaCredentials;
  const answer = await callVendor(context, {
    vendor: VENDOR,
    url: endpoint(credentials, service, path),
    headers: { authorization: `Bearer ${credentials.apiKey}` },
    body,
  });
  const envelope = answer.json as { status?: unknown; summary?: unknown; request_id?: unknown; result?: unknown };
  if (typeof envelope !== "object" || envelope === null) throw missingField(VENDOR, "a response envelope");
  if (envelope.status !== "Success") {
    throw new VendorError(
      "vendor_status",
      `${VENDOR} answered status ${String(envelope.status)}: ${String(envelope.summary ?? "")}`,
    );
  }
  if (typeof envelope.result !== "object" || envelope.result === null) throw missingField(VENDOR, "result");
  return {
    result: envelope.result as Record<string, unknown>,
    requestId: typeof envelope.request_id === "string" ? envelope.request_id : undefined,
    summary: typeof envelope.summary === "string" ? envelope.summary : undefined,
    latencyMs: answer.latencyMs,
  };
}
