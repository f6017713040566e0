/**
 * The built-in `mock` provider: answers from `mock_response` (config, target or request body) in
 * the endpoint's own format, streamed or not, so guardrail configs can be tried without calling a
 * model. Without a mock response it echoes the evaluated text of the request.
 */
import { createHash, randomUUID } from "node:crypto";
import { locateText } from "../../core/index.js";
import type { Endpoint } from "../pipeline/endpoints.js";

/** A rough token count for `usage`: words, since the mock calls no tokenizer. */
function roughTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The text the mock answers with. */
export function mockText(endpoint: Endpoint, body: Record<string, unknown>, mockResponse: unknown): string {
  if (typeof mockResponse === "string") return mockResponse;
  if (mockResponse && typeof mockResponse === "object") return locateText("output", endpoint.requestType, mockResponse).text;
  return `You said: ${locateText("input", endpoint.requestType, body).text}`;
}

function modelOf(body: Record<string, unknown>): string {
  return typeof body.model === "string" ? body.model : "mock";
}

/** A small deterministic vector per input, so embeddings are stable across calls. */
function vector(text: string): number[] {
  const hash = createHash("sha256").update(text).digest();
  return Array.from({ length: 8 }, (_, i) => Number(((hash[i] as number) / 255 - 0.5).toFixed(6)));
}

/** The non-streamed answer: `mock_response` as given when it is an object, else built from the text. */
export function mockBody(endpoint: Endpoint, body: Record<string, unknown>, mockResponse: unknown): Record<string, unknown> {
  if (mockResponse && typeof mockResponse === "object" && !Array.isArray(mockResponse)) {
    return structuredClone(mockResponse as Record<string, unknown>);
  }
  const text = mockText(endpoint, body, mockResponse);
  const model = modelOf(body);
  const created = Math.floor(Date.now() / 1000);
  const prompt = roughTokens(locateText("input", endpoint.requestType, body).text);
  const completion = roughTokens(text);
  switch (endpoint.requestType) {
    case "chatComplete":
      return {
        id: `chatcmpl-mock-${randomUUID()}`,
        object: "chat.completion",
        created,
        model,
        choices: [
          { index: 0, message: { role: "assistant", content: text, refusal: null }, logprobs: null, finish_reason: "stop" },
        ],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      };
    case "complete":
      return {
        id: `cmpl-mock-${randomUUID()}`,
        object: "text_completion",
        created,
        model,
        choices: [{ index: 0, text, logprobs: null, finish_reason: "stop" }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      };
    case "embed": {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return {
        object: "list",
        data: inputs.map((input, index) => ({ object: "embedding", index, embedding: vector(JSON.stringify(input ?? "")) })),
        model,
        usage: { prompt_tokens: prompt, total_tokens: prompt },
      };
    }
    case "messages":
      return {
        id: `msg_mock_${randomUUID().replaceAll("-", "")}`,
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: prompt, output_tokens: completion },
      };
  }
}

function dataEvent(value: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
}

function namedEvent(name: string, value: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(value)}\n\n`);
}

/** The streamed answer as server-sent events in the endpoint's format, a few words per event. */
export function* mockStream(endpoint: Endpoint, body: Record<string, unknown>, mockResponse: unknown): Generator<Buffer> {
  const text = mockText(endpoint, body, mockResponse);
  const pieces = text.match(/\s*\S+\s*/g) ?? [];
  const model = modelOf(body);
  const created = Math.floor(Date.now() / 1000);
  if (endpoint.requestType === "messages") {
    const id = `msg_mock_${randomUUID().replaceAll("-", "")}`;
    const usage = { input_tokens: roughTokens(locateText("input", "messages", body).text), output_tokens: 0 };
    yield namedEvent("message_start", {
      type: "message_start",
      message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage },
    });
    yield namedEvent("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    for (const piece of pieces) {
      yield namedEvent("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: piece },
      });
    }
    yield namedEvent("content_block_stop", { type: "content_block_stop", index: 0 });
    yield namedEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: roughTokens(text) },
    });
    yield namedEvent("message_stop", { type: "message_stop" });
    return;
  }
  if (endpoint.requestType === "chatComplete") {
    const id = `chatcmpl-mock-${randomUUID()}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    yield dataEvent(chunk({ role: "assistant", content: "" }, null));
    for (const piece of pieces) yield dataEvent(chunk({ content: piece }, null));
    yield dataEvent(chunk({}, "stop"));
  } else {
    const id = `cmpl-mock-${randomUUID()}`;
    const chunk = (piece: string, finish: string | null) => ({
      id,
      object: "text_completion",
      created,
      model,
      choices: [{ index: 0, text: piece, logprobs: null, finish_reason: finish }],
    });
    for (const piece of pieces) yield dataEvent(chunk(piece, null));
    yield dataEvent(chunk("", "stop"));
  }
  yield Buffer.from("data: [DONE]\n\n");
}
