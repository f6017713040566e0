/** The OpenAI moderation service as the openai plugin's checks call it. */
import type { JsonSchema } from "../../core/index.js";
import { baseUrlCredential, type PartnerService } from "../partner-kit/index.js";

export const OPENAI: PartnerService = { id: "openai", name: "OpenAI moderation" };

/** Default base URL, as the official OpenAI client takes it. */
export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Credentials of the openai plugin. */
export const OPENAI_CREDENTIALS: JsonSchema = {
  type: "object",
  properties: {
    apiKey: { type: "string", minLength: 1, description: "An OpenAI API key." },
    organization: { type: "string", minLength: 1, description: "Sent as `OpenAI-Organization`, when the key serves several." },
    project: { type: "string", minLength: 1, description: "Sent as `OpenAI-Project`." },
    baseURL: baseUrlCredential(OPENAI_BASE_URL),
  },
  required: ["apiKey"],
  additionalProperties: false,
};
