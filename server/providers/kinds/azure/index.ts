/**
 * Azure OpenAI (catalog name `azure-openai`): the OpenAI API on a deployment URL, with Azure's
 * authentication, api versions and content filter (docs/providers.md, "Azure OpenAI"). Requests
 * in the OpenAI format pass through unchanged; the kind gives their URL and credential, and reads
 * the answer's content filter verdicts for the log. Clients of another format (Anthropic's
 * Messages) reach the deployment's chat completions through the OpenAI chat backend, whose
 * native answer is read the same way.
 */
import type { PassthroughTarget, ProviderCall, ProviderKind } from "../../kind.js";
import { openAiChatBackend } from "../openai/index.js";
import { azureAnswer } from "./answer.js";
import { azureAuthHeaders } from "./auth.js";
import { AZURE_OPTIONS_SCHEMA, AZURE_SECRET_OPTIONS, azureOptions } from "./options.js";
import { azureResponsesTarget, azureUrl } from "./target.js";

async function target(call: ProviderCall, path?: string): Promise<PassthroughTarget> {
  const options = azureOptions(call.provider.options);
  if (call.endpoint.format === "responses" && path === undefined) {
    // The Responses API lives beside the deployments; the request names its deployment as the model.
    const target = azureResponsesTarget(call, options);
    return { ...target, headers: await azureAuthHeaders(call, options) };
  }
  const url = azureUrl(call, options, path);
  return { url, headers: await azureAuthHeaders(call, options) };
}

export const azureOpenAi: ProviderKind = {
  format: "openai",
  alsoServes: ["responses"],
  passthrough: (call) => target(call),
  chat: openAiChatBackend((call) => target(call, "/chat/completions")),
  answered: azureAnswer,
  optionsSchema: AZURE_OPTIONS_SCHEMA,
  secretOptions: AZURE_SECRET_OPTIONS,
};
