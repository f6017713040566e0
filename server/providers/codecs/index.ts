/** The client codecs by format: how a client's request reaches a provider through the OpenAI chat form. */
import type { FormatName } from "../../formats/index.js";
import type { ClientCodec } from "./codec.js";
import { anthropicCodec } from "./anthropic.js";
import { openAiCodec } from "./openai.js";
import { responsesCodec } from "./responses.js";

export const CLIENT_CODECS: Readonly<Partial<Record<FormatName, ClientCodec>>> = {
  openai: openAiCodec,
  anthropic: anthropicCodec,
  responses: responsesCodec,
};
