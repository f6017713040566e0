/**
 * Azure AI Content Safety and Azure AI Language as the azure plugin's checks call them: the
 * resource's endpoint and key, from flat credentials or from the peer gateway's per-service
 * groups (`contentSafety`, `pii`), and the one call each check makes.
 */
import type { CheckContext, JsonSchema } from "../../core/index.js";
import {
  BASE_URL_CREDENTIAL,
  callPartner,
  type PartnerAnswer,
  partnerBaseUrl,
  type PartnerService,
  partnerUrl,
  requiredCredential,
} from "../partner-kit/index.js";

export const CONTENT_SAFETY: PartnerService = { id: "azure", name: "Azure AI Content Safety" };
export const LANGUAGE: PartnerService = { id: "azure", name: "Azure AI Language" };

/** Which credentials group a check reads: the peer gateway keeps one per service. */
export type CredentialGroup = "contentSafety" | "pii";

const RESOURCE: Record<string, JsonSchema> = {
  resourceName: {
    type: "string",
    pattern: "^[A-Za-z0-9][A-Za-z0-9-]*$",
    description: "The Azure resource name: calls go to https://<resourceName>.cognitiveservices.azure.com.",
  },
  apiKey: { type: "string", minLength: 1, description: "A key of the resource, sent as `Ocp-Apim-Subscription-Key`." },
  azureAuthMode: {
    enum: ["apiKey"],
    description: "How to authenticate; API keys only (Entra ID and managed identities are not supported).",
  },
  baseURL: BASE_URL_CREDENTIAL,
  customHost: { type: "string", minLength: 1, description: "The peer gateway's name for `baseURL` (a private endpoint)." },
  endpoint: { type: "string", minLength: 1, description: "The resource's endpoint as Azure shows it; same as `baseURL`." },
};

const GROUP: JsonSchema = { type: "object", properties: RESOURCE, additionalProperties: false };

/** Credentials of the azure plugin: a resource's, or one per service as the peer gateway groups them. */
export const AZURE_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    ...RESOURCE,
    contentSafety: {
      ...GROUP,
      description: "Credentials of the Content Safety resource, when it differs from the Language one.",
    },
    pii: { ...GROUP, description: "Credentials of the Language resource the PII check calls." },
  },
  additionalProperties: false,
};

/** The default API versions. */
export const CONTENT_SAFETY_API_VERSION = "2024-09-01";
export const LANGUAGE_API_VERSION = "2024-11-01";

/** Schema of the `apiVersion` parameter. */
export function apiVersionParameter(fallback: string): JsonSchema {
  return {
    type: "string",
    pattern: "^\\d{4}-\\d{2}-\\d{2}(-preview)?$",
    default: fallback,
    description: "The API version to call.",
  };
}

function group(credentials: CheckContext["credentials"], name: CredentialGroup): Record<string, unknown> | undefined {
  const nested = credentials?.[name];
  return typeof nested === "object" && nested !== null ? (nested as Record<string, unknown>) : credentials;
}

/** Calls `path` of the resource with the key of `groupName`, under the check's context. */
export async function callAzure(
  context: CheckContext,
  service: PartnerService,
  groupName: CredentialGroup,
  path: string,
  apiVersion: string,
  body: unknown,
  timeout: number,
): Promise<PartnerAnswer> {
  const credentials = group(context.credentials, groupName);
  const key = requiredCredential(service, credentials, ["apiKey"]);
  const resource = typeof credentials?.resourceName === "string" ? credentials.resourceName : undefined;
  const hasOverride = ["baseURL", "customHost", "endpoint"].some((f) => typeof credentials?.[f] === "string");
  if (!resource && !hasOverride) requiredCredential(service, credentials, ["resourceName", "baseURL", "endpoint"]);
  const base = partnerBaseUrl(service, credentials, `https://${resource}.cognitiveservices.azure.com`, [
    "endpoint",
    "customHost",
  ]);
  return callPartner(context, service, {
    url: partnerUrl(base, path, { "api-version": apiVersion }),
    headers: { "ocp-apim-subscription-key": key },
    json: body,
    timeout,
  });
}
