/**
 * A Gemini `GenerateContentResponse` as an OpenAI chat completion: each candidate a choice whose
 * text parts are joined and whose function calls become tool calls (with ids made here, as Gemini
 * gives none on the Gemini API), the finish reason in OpenAI's words, and `usageMetadata` as
 * usage. A prompt Gemini blocked is a 400 `provider_blocked_prompt` naming the reason: an
 * OpenAI SDK raises it as a BadRequestError, as it does Azure OpenAI's filtered prompts, instead
 * of handing the application an empty answer it might take for one. What Gemini's safety filter
 * said (the block, the ratings) goes to the request log's `provider_filters` (filters.ts).
 */
import { randomBytes } from "node:crypto";
import { isObject } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import type { Json } from "../../kind.js";
import { FILTERED_FINISH_REASONS, type SafetyFacts } from "./filters.js";

/** The OpenAI finish reason of a candidate; a stop after function calls is `tool_calls`, one not known `stop`. */
export function finishReasonOf(reason: unknown, calledTools: boolean): string {
  if (typeof reason === "string" && FILTERED_FINISH_REASONS.has(reason)) return "content_filter";
  if (reason === "MAX_TOKENS") return "length";
  return calledTools ? "tool_calls" : "stop";
}

/** An id for a tool call, in OpenAI's style. */
export function toolCallId(): string {
  return `call_${randomBytes(12).toString("hex")}`;
}

/** The parts of a candidate's content; thought summaries are the model's reasoning, not its answer. */
export function partsOf(candidate: Json): Json[] {
  const content = isObject(candidate.content) ? candidate.content : undefined;
  const parts = Array.isArray(content?.parts) ? (content.parts as unknown[]) : [];
  return parts.filter((part): part is Json => isObject(part) && part.thought !== true);
}

/** A function call part as an OpenAI tool call. */
export function toolCallOf(call: Json): Json {
  return {
    id: typeof call.id === "string" && call.id ? call.id : toolCallId(),
    type: "function",
    function: { name: String(call.name ?? ""), arguments: JSON.stringify(call.args ?? {}) },
  };
}

/** `usageMetadata` as OpenAI usage, cached tokens included when Gemini reports some. */
export function usageOf(metadata: unknown): Json | undefined {
  if (!isObject(metadata)) return undefined;
  const prompt = Number(metadata.promptTokenCount ?? 0);
  // Thinking tokens are billed as output: they count among the completion's tokens, as OpenAI counts reasoning.
  const completion = Number(metadata.candidatesTokenCount ?? 0) + Number(metadata.thoughtsTokenCount ?? 0);
  const usage: Json = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (typeof metadata.cachedContentTokenCount === "number") {
    usage.prompt_tokens_details = { cached_tokens: metadata.cachedContentTokenCount };
  }
  return usage;
}

/**
 * Notes the prompt's ratings and, when Gemini blocked it (`promptFeedback.blockReason`, no
 * candidates), throws its 400.
 */
export function checkPromptFeedback(answer: Json, provider: string, safety: SafetyFacts): void {
  const feedback = isObject(answer.promptFeedback) ? answer.promptFeedback : undefined;
  safety.prompt(feedback);
  const reason = feedback?.blockReason;
  if (typeof reason !== "string" || reason === "BLOCK_REASON_UNSPECIFIED") return;
  const message = typeof feedback?.blockReasonMessage === "string" ? ` (${feedback.blockReasonMessage})` : "";
  throw new GatewayError(
    "provider_blocked_prompt",
    `${provider} blocked the prompt: ${reason}${message}; its safety filter answered nothing`,
  );
}

/** The OpenAI chat completion of a Gemini answer. */
export function chatCompletion(answer: Json, chat: Json, provider: string, safety: SafetyFacts): Json {
  checkPromptFeedback(answer, provider, safety);
  const candidates = Array.isArray(answer.candidates) ? (answer.candidates as unknown[]).filter(isObject) : [];
  const choices = candidates.map((candidate, i) => {
    const index = typeof candidate.index === "number" ? candidate.index : i;
    safety.candidate(candidate);
    const parts = partsOf(candidate);
    const text = parts
      .filter((p) => typeof p.text === "string")
      .map((p) => p.text as string)
      .join("");
    const toolCalls = parts.filter((p) => isObject(p.functionCall)).map((p) => toolCallOf(p.functionCall as Json));
    const message: Json = { role: "assistant", content: text || (toolCalls.length ? null : ""), refusal: null };
    if (toolCalls.length) message.tool_calls = toolCalls;
    return {
      index,
      message,
      logprobs: null,
      finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0),
    };
  });
  const completion: Json = {
    id: typeof answer.responseId === "string" ? `chatcmpl-${answer.responseId}` : `chatcmpl-${randomBytes(12).toString("hex")}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: typeof answer.modelVersion === "string" ? answer.modelVersion : chat.model,
    choices,
  };
  const usage = usageOf(answer.usageMetadata);
  if (usage) completion.usage = usage;
  return completion;
}
