/**
 * Azure OpenAI (catalog name `azure-openai`): the OpenAI API on a deployment URL, with Azure's
 * authentication, api versions and content filter (docs/providers.md, "Azure OpenAI"). Requests
 * in the OpenAI format pass through unchanged; the kind gives their URL and credential, and reads
 * the answer's content filter verdicts for the log.
 */
import type { ProviderKind } from "../../adapter.js";
import { azureAnswer } from "./answer.js";
import { azureAuthHeaders } from "./auth.js";
import { AZURE_OPTIONS_SCHEMA, AZURE_SECRET_OPTIONS, azureOptions } from "./options.js";
import { azureUrl } from "./target.js";

export const azureOpenAi: ProviderKind = {
  format: "openai",
  async passthrough(call) {
    const options = azureOptions(call.provider.options);
    const url = azureUrl(call, options);
    return { url, headers: await azureAuthHeaders(call, options) };
  },
  answered: azureAnswer,
  optionsSchema: AZURE_OPTIONS_SCHEMA,
  secretOptions: AZURE_SECRET_OPTIONS,
};
