/** OpenAI-format kinds reached from other formats: the chat backend, shared by every such kind. */
import { openAiChatBackend } from "./backend.js";

export { type ChatTarget, OPENAI_CHAT_PARAMETERS, openAiChatBackend } from "./backend.js";
export { openAiError } from "./errors.js";
export { openAiChunks } from "./stream.js";

/** The backend of kinds reached at `baseUrl + /chat/completions` with their provider's headers. */
export const OPENAI_CHAT = openAiChatBackend();
