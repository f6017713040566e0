/**
 * The OpenAI chat backend: reaches an OpenAI-format provider from the OpenAI chat form, which is
 * its own wire format, so the request and the answer pass unchanged; a stream asks for its usage
 * (`stream_options.include_usage`), which the client's codec needs for its final event. Where the
 * call goes is the target's to say, so a kind with its own URLs and auth (Azure) reuses it.
 */
import type { ChatBackend, Json, PassthroughTarget, ProviderCall } from "../../kind.js";
import { headersFor } from "../../translate.js";
import { openAiError } from "./errors.js";
import { openAiChunks } from "./stream.js";

/** Where a chat call goes and with which headers. */
export type ChatTarget = (call: ProviderCall) => Promise<PassthroughTarget>;

/** The chat request fields the OpenAI API honours. */
export const OPENAI_CHAT_PARAMETERS: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "reasoning_effort",
  "response_format",
  "seed",
  "service_tier",
  "stop",
  "store",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "web_search_options",
]);

/** `baseUrl + /chat/completions` with the call's headers (the provider's credential among them). */
export const baseUrlTarget: ChatTarget = (call) =>
  Promise.resolve({ url: `${call.provider.baseUrl}/chat/completions`, headers: headersFor("openai", call.headers) });

/** A chat backend for an OpenAI-format provider reached at `target`. */
export function openAiChatBackend(target: ChatTarget = baseUrlTarget): ChatBackend {
  return {
    parameters: OPENAI_CHAT_PARAMETERS,
    async request(chat: Json, call: ProviderCall) {
      const { url, headers } = await target(call);
      const body = call.stream ? { ...chat, stream: true, stream_options: { include_usage: true } } : chat;
      return { url, headers, body: JSON.stringify(body) };
    },
    response: (body) => body,
    stream: (source) => openAiChunks(source),
    error: openAiError,
  };
}
