/**
 * Token usage of an answer: as the upstream reported it (in the fields its format names:
 * OpenAI `prompt_tokens` / `completion_tokens`, Anthropic `input_tokens` / `output_tokens`), or, when it reported none (a
 * stream without usage), counted with a tokenizer on the evaluated texts and marked estimated.
 * Counting is linear in the text and yields to the event loop as it goes (core/tokens.ts): any key
 * holder can send a long run of one character, and the other requests must not wait for it.
 */
import { locateText, type RequestType } from "../../core/index.js";
import { countTokens, loadEncoding } from "../../core/internal.js";
import { FORMAT_LIST } from "../formats/index.js";
import type { LogUsage } from "../logs/record.js";

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** The usage an answer body reports, if any. */
export function reportedUsage(body: unknown): LogUsage | undefined {
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

/** The encoding estimates are counted in (cl100k-style); an approximation for other providers' tokenizers. */
const ESTIMATE_ENCODING = "cl100k_base";

/** Loads the estimating tokenizer, so the first estimate does not hold other requests while it compiles. */
export function loadUsageEstimation(): Promise<void> {
  return loadEncoding(ESTIMATE_ENCODING);
}

/** Tokens of a text, in slices of about 2 ms so that other requests get their turns between them. */
async function tokens(text: string): Promise<number> {
  return text ? (await countTokens(text, ESTIMATE_ENCODING, { yieldEveryMs: 2 })).count : 0;
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
export async function usageOf(
  requestType: RequestType,
  request: unknown,
  response: unknown,
  streamedText?: string,
): Promise<LogUsage | undefined> {
  return reportedUsage(response) ?? estimatedUsage(requestType, request, response, streamedText);
}

/** Usage estimated from the request's and the answer's texts, for an answer that reports none. */
export async function estimatedUsage(
  requestType: RequestType,
  request: unknown,
  response: unknown,
  streamedText?: string,
): Promise<LogUsage | undefined> {
  if (request === undefined) return undefined;
  let input = 0;
  for (const text of requestTexts(request)) input += await tokens(text);
  let output = 0;
  if (streamedText !== undefined) output = await tokens(streamedText);
  else if (response !== undefined && requestType !== "embed")
    output = await tokens(locateText("output", requestType, response).text);
  return { input_tokens: input, output_tokens: output, estimated: true };
}
