/**
 * The `bedrock` provider kind: Amazon Bedrock's Converse and ConverseStream for chat, from OpenAI
 * chat requests (and Anthropic messages, through their codec), and InvokeModel for Titan and
 * Cohere embeddings. Bedrock speaks no format guardgate serves, so every call is translated.
 */
import type { ChatBackend, ProviderKind } from "../../kind.js";
import { modelPath, REGION_PATTERN, signedCall } from "./auth.js";
import { bedrockEmbeddings } from "./embeddings.js";
import { bedrockError } from "./errors.js";
import { CHAT_PARAMETERS, converseRequest } from "./request.js";
import { chatCompletion } from "./response.js";
import { chatChunks } from "./stream.js";

const chat: ChatBackend = {
  parameters: CHAT_PARAMETERS,
  request(request, call) {
    const body = converseRequest(request, call.dropParams);
    return call.stream
      ? signedCall(call, `${modelPath(request.model)}/converse-stream`, body, "application/vnd.amazon.eventstream")
      : signedCall(call, `${modelPath(request.model)}/converse`, body, "application/json");
  },
  response: chatCompletion,
  stream: chatChunks,
  error: bedrockError,
};

const text = (description: string) => ({ type: "string", minLength: 1, description });

export const bedrock: ProviderKind = {
  chat,
  embeddings: bedrockEmbeddings,
  optionsSchema: {
    type: "object",
    properties: {
      aws_access_key_id: text("The access key id; without it, the environment and then the shared AWS files are used."),
      aws_secret_access_key: text("The secret access key, with aws_access_key_id."),
      aws_session_token: text("A session token, with temporary credentials."),
      aws_region: { type: "string", pattern: REGION_PATTERN, description: "The region, e.g. us-east-1." },
      // A provider record's or an integration's only: a config (which a request may carry) cannot
      // pick another profile of the operator's files, so it is not among the config keys.
      aws_profile: text("The profile of the shared AWS files read when no keys are given; default AWS_PROFILE, else default."),
    },
    dependentRequired: {
      aws_access_key_id: ["aws_secret_access_key"],
      aws_secret_access_key: ["aws_access_key_id"],
      aws_session_token: ["aws_access_key_id"],
    },
    additionalProperties: false,
  },
  secretOptions: ["aws_secret_access_key", "aws_session_token"],
};
