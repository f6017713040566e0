/**
 * The settings of an Azure OpenAI provider, named as the peer gateway's config names them
 * (`resource_name`, `deployment_id`, `api_version`, `azure_entra_*`), plus `azure_deployments`
 * (a deployment per model) and `azure_authority_host` (where Entra ID tokens come from).
 * docs/providers.md, "Azure OpenAI", explains each.
 */
import type { SchemaType } from "../../../schema-types.js";
import type { Json } from "../../kind.js";

/**
 * The API version sent when none is set: the latest generally available version of the
 * deployment-path inference API (Azure OpenAI REST API reference, "Data plane - inference").
 */
export const DEFAULT_API_VERSION = "2024-10-21";

/** Where Microsoft Entra ID issues tokens in the public cloud; sovereign clouds set their own. */
export const DEFAULT_AUTHORITY_HOST = "https://login.microsoftonline.com";

/** The scope of a token for Azure OpenAI (Cognitive Services). */
export const DEFAULT_ENTRA_SCOPE = "https://cognitiveservices.azure.com/.default";

/** Azure's rule for deployment names (letters, digits, `-`, `_`, `.`), which also keeps a name one path segment. */
const DEPLOYMENT = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";
export const DEPLOYMENT_NAME = new RegExp(DEPLOYMENT);

const ENTRA_FIELDS = ["azure_entra_tenant_id", "azure_entra_client_id", "azure_entra_client_secret"];

export const AZURE_OPTIONS_SCHEMA = {
  type: "object",
  properties: {
    // A host name label: the resource name is the first label of its endpoint's host.
    resource_name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9-]{0,62}$" },
    deployment_id: { type: "string", pattern: DEPLOYMENT },
    azure_deployments: { type: "object", additionalProperties: { type: "string", pattern: DEPLOYMENT } },
    api_version: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}(-preview)?$" },
    azure_auth_mode: { enum: ["api_key", "entra"] },
    azure_entra_tenant_id: { type: "string", pattern: "^[A-Za-z0-9.-]{1,128}$" },
    azure_entra_client_id: { type: "string", minLength: 1 },
    azure_entra_client_secret: { type: "string", minLength: 1 },
    azure_entra_scope: { type: "string", minLength: 1 },
    azure_authority_host: { type: "string", pattern: "^https?://[^/?#@]+$" },
    azure_ad_token: { type: "string", minLength: 1 },
  },
  additionalProperties: false,
  // Entra ID needs the tenant, the application and its secret together.
  if: { properties: { azure_auth_mode: { const: "entra" } }, required: ["azure_auth_mode"] },
  then: { properties: Object.fromEntries(ENTRA_FIELDS.map((field) => [field, true])), required: ENTRA_FIELDS },
  dependentRequired: { azure_entra_client_secret: ENTRA_FIELDS },
} as const;

/** Options holding secrets: scrubbed from answers, never shown. */
export const AZURE_SECRET_OPTIONS = ["azure_entra_client_secret", "azure_ad_token"] as const;

/** The options, typed from their schema, which has checked them where they were written. */
export type AzureOptions = SchemaType<typeof AZURE_OPTIONS_SCHEMA>;

export function azureOptions(options: Json): AzureOptions {
  return options as AzureOptions;
}
