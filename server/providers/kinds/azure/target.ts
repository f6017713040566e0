/**
 * Where an Azure OpenAI call goes: `{base}/deployments/{deployment}{path}?api-version={version}`,
 * the base being the provider's `base_url` (a custom domain, an Azure AI Foundry resource) or
 * `https://{resource_name}.openai.azure.com/openai` (Azure OpenAI REST API reference).
 */
import { GatewayError } from "../../../errors.js";
import type { Json, ProviderCall } from "../../kind.js";
import { type AzureOptions, DEFAULT_API_VERSION, DEPLOYMENT_NAME } from "./options.js";

/** The base URL, up to and including `/openai`. */
export function azureBase(call: ProviderCall, options: AzureOptions): string {
  if (call.provider.baseUrl) return call.provider.baseUrl;
  if (options.resource_name) return `https://${options.resource_name}.openai.azure.com/openai`;
  throw new GatewayError(
    "provider_not_configured",
    `${label(call)} needs resource_name (or a base_url ending in /openai) to be called`,
  );
}

/**
 * The deployment serving the request's model: the one `azure_deployments` maps it to, else
 * `deployment_id`, else a deployment named as the model (Azure's portal names deployments after
 * their model by default).
 */
export function azureDeployment(call: ProviderCall, options: AzureOptions): string {
  const model = typeof call.body.model === "string" ? call.body.model : undefined;
  const deployment = azureDeploymentFor(options, model);
  if (deployment === undefined) {
    throw new GatewayError("provider_not_configured", `${label(call)} needs deployment_id, or a model naming the deployment`);
  }
  // Operator names are checked by the options schema; a model naming the deployment is the client's.
  if (!DEPLOYMENT_NAME.test(deployment)) {
    throw new GatewayError(
      "invalid_model",
      `model: "${deployment}" cannot name an Azure deployment (letters, digits, "-", "_" and "." only); map it with azure_deployments or set deployment_id`,
    );
  }
  return deployment;
}

/** The deployment a model is sent to under these options (policy scopes match it too); undefined when none. */
export function azureDeploymentFor(options: AzureOptions | Json, model: string | undefined): string | undefined {
  const { azure_deployments: map, deployment_id: id } = options as AzureOptions;
  const mapped = model !== undefined && map && Object.hasOwn(map, model) ? map[model] : undefined;
  return mapped ?? id ?? model;
}

/**
 * The full URL of one call: to the operation of the client's route, or to `path` (chat
 * completions, for a client of another format reaching Azure through translation).
 */
export function azureUrl(call: ProviderCall, options: AzureOptions, path = call.endpoint.upstreamPath): string {
  const version = encodeURIComponent(options.api_version ?? DEFAULT_API_VERSION);
  return `${azureBase(call, options)}/deployments/${azureDeployment(call, options)}${path}?api-version=${version}`;
}

/** The api-version a Responses call takes when the options name an older one or none: the first that has it. */
export const RESPONSES_API_VERSION = "2025-04-01-preview";

/**
 * A Responses API call: `{base}/responses?api-version=…`, the deployment named as the body's
 * model (Azure OpenAI REST API reference, "Responses").
 */
export function azureResponsesTarget(call: ProviderCall, options: AzureOptions): { url: string; body: string } {
  const asked = options.api_version;
  const version = encodeURIComponent(asked !== undefined && asked >= RESPONSES_API_VERSION ? asked : RESPONSES_API_VERSION);
  const route = call.idRoute;
  // An id route names a response, not a deployment: `{base}/responses/{id}…?api-version=…`.
  if (route) {
    const query = route.query ? `&${route.query}` : "";
    return { url: `${azureBase(call, options)}/responses${route.path}?api-version=${version}${query}`, body: "" };
  }
  const deployment = azureDeployment(call, options);
  const body = deployment === call.body.model ? call.text : JSON.stringify({ ...call.body, model: deployment });
  return { url: `${azureBase(call, options)}/responses?api-version=${version}`, body };
}

export function label(call: ProviderCall): string {
  return call.provider.slug ? `provider "@${call.provider.slug}" (azure-openai)` : 'provider "azure-openai"';
}
