/**
 * A Gemini `streamGenerateContent?alt=sse` stream as OpenAI chat chunks, event by event: each
 * `data:` event is a `GenerateContentResponse` holding the next parts of each candidate. Text
 * parts become content deltas, a function call (which Gemini sends whole) one tool-call delta
 * with its id, name and arguments, a candidate's `finishReason` its choice's last chunk, and the
 * last `usageMetadata` the closing usage chunk. Gemini sends no end marker: the stream is
 * complete when every candidate it began has finished; one ending before is a 502.
 */
import { randomBytes } from "node:crypto";
import { isObject } from "../../../../core/internal.js";
import { GatewayError } from "../../../errors.js";
import { SseSplitter } from "../../../formats/sse.js";
import type { Json } from "../../kind.js";
import type { SafetyFacts } from "./filters.js";
import { checkPromptFeedback, finishReasonOf, partsOf, toolCallOf, usageOf } from "./response.js";

interface ChoiceState {
  started: boolean;
  toolCalls: number;
  finished: boolean;
}

/** OpenAI chat chunks of a Gemini SSE stream. */
export async function* chatChunks(
  source: AsyncIterable<Buffer>,
  chat: Json,
  provider: string,
  safety: SafetyFacts,
): AsyncGenerator<Json> {
  const splitter = new SseSplitter();
  const choices = new Map<number, ChoiceState>();
  let id: string | undefined;
  let model = chat.model;
  let usage: Json | undefined;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (index: number, delta: Json, finish: string | null = null): Json => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
  });

  function* translate(answer: Json): Generator<Json> {
    if (isObject(answer.error)) {
      const message = typeof answer.error.message === "string" ? answer.error.message : "an error event";
      throw new GatewayError("upstream_stream_error", `${provider} reported an error in its stream: ${message}`);
    }
    id ??=
      typeof answer.responseId === "string" ? `chatcmpl-${answer.responseId}` : `chatcmpl-${randomBytes(12).toString("hex")}`;
    if (typeof answer.modelVersion === "string") model = answer.modelVersion;
    checkPromptFeedback(answer, provider, safety);
    usage = usageOf(answer.usageMetadata) ?? usage;
    const candidates = Array.isArray(answer.candidates) ? (answer.candidates as unknown[]).filter(isObject) : [];
    for (const [i, candidate] of candidates.entries()) {
      const index = typeof candidate.index === "number" ? candidate.index : i;
      let state = choices.get(index);
      if (!state) {
        state = { started: false, toolCalls: 0, finished: false };
        choices.set(index, state);
      }
      safety.candidate(candidate);
      for (const part of partsOf(candidate)) {
        const role = state.started ? {} : { role: "assistant" };
        if (typeof part.text === "string" && part.text !== "") {
          state.started = true;
          yield chunk(index, { ...role, content: part.text });
        } else if (isObject(part.functionCall)) {
          state.started = true;
          yield chunk(index, { ...role, tool_calls: [{ index: state.toolCalls++, ...toolCallOf(part.functionCall) }] });
        }
      }
      if (
        typeof candidate.finishReason === "string" &&
        candidate.finishReason !== "FINISH_REASON_UNSPECIFIED" &&
        !state.finished
      ) {
        state.finished = true;
        const role = state.started ? {} : { role: "assistant", content: "" };
        state.started = true;
        yield chunk(index, role, finishReasonOf(candidate.finishReason, state.toolCalls > 0));
      }
    }
  }

  for await (const bytes of source) {
    for (const event of splitter.push(bytes)) yield* translateEvent(event.data);
  }
  const rest = splitter.flush();
  if (rest) yield* translateEvent(rest.data);
  if (choices.size === 0 || [...choices.values()].some((state) => !state.finished)) {
    throw new GatewayError("upstream_stream_incomplete", `${provider}'s stream ended before every candidate finished`);
  }
  if (usage) yield { id, object: "chat.completion.chunk", created, model, choices: [], usage };

  function* translateEvent(data: string): Generator<Json> {
    if (data.trim() === "") return;
    let answer: unknown;
    try {
      answer = JSON.parse(data);
    } catch {
      throw new GatewayError("upstream_invalid_response", `${provider} sent a stream event that is not JSON`);
    }
    if (!isObject(answer))
      throw new GatewayError("upstream_invalid_response", `${provider} sent a stream event that is not a JSON object`);
    yield* translate(answer);
  }
}
