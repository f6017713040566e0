/**
 * The Anthropic client codec: a Messages request reaches a provider of another format through the
 * OpenAI chat form, and the chat answer, streamed or not, comes back as an Anthropic message.
 */
import type { ClientCodec } from "./codec.js";
import { messageOfCompletion } from "./anthropic-answer.js";
import { chatOfMessages } from "./anthropic-request.js";
import { messageEventsOfChunks } from "./anthropic-stream.js";

export const anthropicCodec: ClientCodec = {
  toChat: chatOfMessages,
  fromChat: (completion) => messageOfCompletion(completion),
  streamFromChat: messageEventsOfChunks,
};
