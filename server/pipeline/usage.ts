/**
 * Token usage of an answer: as the upstream reported it (in the fields its format names:
 * OpenAI `prompt_tokens` / `completion_tokens`, Anthropic `input_tokens` / `output_tokens`), or, when it reported none (a
 * stream without usage), counted with a tokenizer on the evaluated texts and marked estimated.
 */
import { encode } from "gpt-tokenizer";
import { locateText, type RequestType } from "../../core/index.js";
import { FORMAT_LIST } from "../formats/index.js";
import type { Usage } from "./policy.js";

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The usage an answer body reports, if any. */
export function reportedUsage(body: unknown): Usage | undefined {
  const usage = (body as { usage?: Record<string, unknown> } | undefined)?.usage;
  if (!usage || typeof usage !== "object") return undefined;
  // Any format's fields are read, whichever format the answer came in: the first that holds a count wins.
  let input: number | undefined;
  let output: number | undefined;
  for (const { usageFields } of FORMAT_LIST) {
    input ??= count(usage[usageFields.input]);
    output ??= count(usage[usageFields.output]);
  }
  output ??= 0;
  return input === undefined ? undefined : { input_tokens: input, output_tokens: output };
}

/** Tokens of a text (cl100k-style); an approximation for other providers' tokenizers. */
function tokens(text: string): number {
  return text ? encode(text).length : 0;
}

/** Every text a request sends: all messages (not only the last one checks see), system, prompt, input. */
function requestTexts(request: unknown): string[] {
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") texts.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value && typeof value === "object") {
      const part = value as Record<string, unknown>;
      if (typeof part.text === "string") texts.push(part.text);
      else if ("content" in part) collect(part.content);
    }
  };
  const body = (request ?? {}) as Record<string, unknown>;
  for (const key of ["system", "messages", "prompt", "input"]) collect(body[key]);
  return texts;
}

/** Usage reported by the answer, else estimated from the request's and the answer's texts. */
export function usageOf(requestType: RequestType, request: unknown, response: unknown, streamedText?: string): Usage | undefined {
  const reported = reportedUsage(response);
  if (reported) return reported;
  if (request === undefined) return undefined;
  const input = requestTexts(request).reduce((sum, text) => sum + tokens(text), 0);
  let output = 0;
  if (streamedText !== undefined) output = tokens(streamedText);
  else if (response !== undefined && requestType !== "embed") output = tokens(locateText("output", requestType, response).text);
  return { input_tokens: input, output_tokens: output, estimated: true };
}
