/**
 * An Anthropic message as an OpenAI chat completion: text blocks as the content, tool_use blocks
 * as tool calls with their input as JSON arguments, the stop reason as a finish reason, and the
 * usage with the cached input tokens counted among the prompt tokens, as OpenAI counts them.
 */
import type { Json } from "../../kind.js";
import { isJson, jsonItems, nowSeconds } from "../../translate.js";

/** Finish reasons by Anthropic stop reason; thinking blocks and server tools are not the chat form's. */
const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

export function finishReasonOf(stop: unknown): string | null {
  return typeof stop === "string" ? (FINISH_REASONS[stop] ?? "stop") : null;
}

/** Usage counts an Anthropic message or stream reported so far. */
export interface AnthropicUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Adds what a usage object reports (a stream reports some at its start and the rest at its end). */
export function readUsage(into: AnthropicUsage, usage: unknown): void {
  if (!isJson(usage)) return;
  if (typeof usage.input_tokens === "number") into.input = usage.input_tokens;
  if (typeof usage.output_tokens === "number") into.output = usage.output_tokens;
  if (typeof usage.cache_read_input_tokens === "number") into.cacheRead = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === "number") into.cacheWrite = usage.cache_creation_input_tokens;
}

/** OpenAI usage: Anthropic's input tokens leave out those read from and written to the cache. */
export function chatUsage(usage: AnthropicUsage): Json {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output,
    total_tokens: prompt + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
  };
}

export function completionOfMessage(message: Json, chat: Json): Json {
  const texts: string[] = [];
  const calls: Json[] = [];
  for (const block of jsonItems(message.content)) {
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (block.type === "tool_use") {
      calls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const answer: Json = { role: "assistant", content: texts.length ? texts.join("") : null, refusal: null };
  if (calls.length) answer.tool_calls = calls;
  const usage: AnthropicUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  readUsage(usage, message.usage);
  return {
    id: message.id,
    object: "chat.completion",
    created: nowSeconds(),
    model: message.model ?? chat.model,
    choices: [{ index: 0, message: answer, logprobs: null, finish_reason: finishReasonOf(message.stop_reason) }],
    usage: chatUsage(usage),
  };
}
