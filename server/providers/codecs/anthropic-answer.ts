/**
 * An OpenAI chat completion as an Anthropic message: the first choice's text as a text block and
 * its tool calls as tool_use blocks, the finish reason as a stop reason, and the usage in
 * Anthropic's terms, where input tokens read from the cache are counted apart from the others.
 */
import type { Json } from "../kind.js";
import { isJson, jsonItems } from "../translate.js";

/** Stop reasons by OpenAI finish reason. The chat form does not say whether a stop sequence matched. */
const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

export function stopReasonOf(finish: unknown): string | null {
  return typeof finish === "string" ? (STOP_REASONS[finish] ?? "end_turn") : null;
}

/** Anthropic usage from OpenAI usage, whose prompt tokens include the cached ones. */
export function anthropicUsage(usage: unknown): Json {
  if (!isJson(usage)) return { input_tokens: 0, output_tokens: 0 };
  const prompt = Number(usage.prompt_tokens ?? 0);
  const details = isJson(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const cached = Number(details.cached_tokens ?? 0);
  const out: Json = { input_tokens: Math.max(prompt - cached, 0), output_tokens: Number(usage.completion_tokens ?? 0) };
  if (details.cached_tokens !== undefined) out.cache_read_input_tokens = cached;
  return out;
}

/** A tool call's arguments as a tool_use input; arguments that are not JSON stay the text they are. */
export function toolInput(args: unknown): unknown {
  if (typeof args !== "string" || !args) return {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The message a completion's first choice says. */
export function messageOfCompletion(completion: Json): Json {
  const choice = jsonItems(completion.choices)[0] ?? {};
  const message = isJson(choice.message) ? choice.message : {};
  const content: Json[] = [];
  const text = typeof message.content === "string" ? message.content : typeof message.refusal === "string" ? message.refusal : "";
  if (text) content.push({ type: "text", text });
  for (const call of jsonItems(message.tool_calls)) {
    const fn = isJson(call.function) ? call.function : {};
    content.push({ type: "tool_use", id: call.id, name: fn.name, input: toolInput(fn.arguments) });
  }
  return {
    id: completion.id,
    type: "message",
    role: "assistant",
    model: completion.model,
    content,
    stop_reason: stopReasonOf(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(completion.usage),
  };
}
