/**
 * The Responses client codec: a Responses request reaches a provider that speaks only chat (or a
 * format of its own) through the OpenAI chat form, and the chat answer, streamed or not, comes
 * back as a Response object or the Responses API's typed events.
 */
import type { ClientCodec } from "./codec.js";
import { responseOfCompletion } from "./responses-answer.js";
import { chatOfResponses } from "./responses-request.js";
import { responseEventsOfChunks } from "./responses-stream.js";

export const responsesCodec: ClientCodec = {
  toChat: chatOfResponses,
  fromChat: responseOfCompletion,
  streamFromChat: responseEventsOfChunks,
};
