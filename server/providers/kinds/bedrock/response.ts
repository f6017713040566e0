/**
 * A Converse answer as an OpenAI chat completion (Amazon Bedrock API Reference, Converse): the
 * output message's text blocks joined, its toolUse blocks as tool calls, the stop reason as a
 * finish reason, and the usage with cached input counted as OpenAI counts it.
 */
import { randomUUID } from "node:crypto";
import type { Json } from "../../kind.js";

const FINISH_REASONS: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
};

/** OpenAI's finish reason for a Converse stop reason; an unknown one ends the turn. */
export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === "string" && FINISH_REASONS[stopReason]) || "stop";
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * Converse's usage as OpenAI's. Converse counts cache reads and writes apart from `inputTokens`;
 * OpenAI's prompt tokens include the cached ones, which `cached_tokens` then names.
 */
export function chatUsage(usage: unknown): Json {
  const u = (usage ?? {}) as Json;
  const cached = count(u.cacheReadInputTokens);
  const prompt = count(u.inputTokens) + cached + count(u.cacheWriteInputTokens);
  const completion = count(u.outputTokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached > 0 && { prompt_tokens_details: { cached_tokens: cached } }),
  };
}

/** An id in OpenAI's form: Converse's answers carry none in their body. */
export function completionId(): string {
  return `chatcmpl-${randomUUID().replaceAll("-", "")}`;
}

/** The OpenAI chat completion for a 2xx Converse answer. */
export function chatCompletion(body: Json, chat: Json): Json {
  const output = (body.output ?? {}) as { message?: { content?: unknown } };
  const blocks = Array.isArray(output.message?.content) ? (output.message.content as Json[]) : [];
  const texts: string[] = [];
  const toolCalls: Json[] = [];
  for (const block of blocks) {
    if (typeof block.text === "string") texts.push(block.text);
    const use = block.toolUse as { toolUseId?: unknown; name?: unknown; input?: unknown } | undefined;
    if (use) {
      toolCalls.push({
        id: use.toolUseId,
        type: "function",
        function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) },
      });
    }
  }
  const message: Json = { role: "assistant", content: texts.length ? texts.join("") : null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  return {
    id: completionId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: chat.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(body.stopReason) }],
    usage: chatUsage(body.usage),
  };
}
