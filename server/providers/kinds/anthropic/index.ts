/**
 * The Anthropic kind reached from the OpenAI chat form: requests to `baseUrl + /messages` with the
 * provider's headers (its `x-api-key` and `anthropic-version`).
 */
import type { ChatBackend } from "../../kind.js";
import { headersFor } from "../../translate.js";
import { anthropicError } from "./errors.js";
import { ANTHROPIC_CHAT_PARAMETERS, messagesOfChat } from "./request.js";
import { completionOfMessage } from "./response.js";
import { chunksOfMessageStream } from "./stream.js";

export { DEFAULT_MAX_TOKENS } from "./request.js";

export const ANTHROPIC_CHAT: ChatBackend = {
  parameters: ANTHROPIC_CHAT_PARAMETERS,
  request: (chat, call) =>
    Promise.resolve({
      url: `${call.provider.baseUrl}/messages`,
      headers: headersFor("anthropic", call.headers),
      body: JSON.stringify(messagesOfChat(chat, call)),
    }),
  response: completionOfMessage,
  stream: chunksOfMessageStream,
  error: anthropicError,
};
