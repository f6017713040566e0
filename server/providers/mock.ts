/**
 * The built-in `mock` provider: answers from `mock_response` (config, target or request body) in
 * the endpoint's own format, streamed or not, so guardrail configs can be tried without calling a
 * model. Without a mock response it echoes the evaluated text of the request. The answers' shapes
 * are the formats' (server/formats/).
 */
import { locateText } from "../../core/index.js";
import { FORMATS, type MockAnswer } from "../formats/index.js";
import type { Endpoint } from "../formats/endpoints.js";

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

function answerOf(endpoint: Endpoint, body: Record<string, unknown>, text: string): MockAnswer {
  return {
    requestType: endpoint.requestType,
    text,
    model: typeof body.model === "string" ? body.model : "mock",
    created: Math.floor(Date.now() / 1000),
    promptTokens: roughTokens(locateText("input", endpoint.requestType, body).text),
    completionTokens: roughTokens(text),
    request: body,
  };
}

/** The non-streamed answer: `mock_response` as given when it is an object, else built from the text. */
export function mockBody(endpoint: Endpoint, body: Record<string, unknown>, mockResponse: unknown): Record<string, unknown> {
  if (mockResponse && typeof mockResponse === "object" && !Array.isArray(mockResponse)) {
    return structuredClone(mockResponse as Record<string, unknown>);
  }
  return FORMATS[endpoint.format].mockBody(answerOf(endpoint, body, mockText(endpoint, body, mockResponse)));
}

/**
 * The streamed answer as server-sent events in the endpoint's format, a word per event; a word
 * longer than 256 characters is sent in 256-character pieces, as a model's tokens would come, so that
 * no single event of a long run holds the thread while it is encoded and relayed.
 */
export function* mockStream(endpoint: Endpoint, body: Record<string, unknown>, mockResponse: unknown): Generator<Buffer> {
  const text = mockText(endpoint, body, mockResponse);
  const objectStream = FORMATS[endpoint.format].mockObjectStream;
  if (objectStream && mockResponse && typeof mockResponse === "object" && !Array.isArray(mockResponse)) {
    yield* objectStream(answerOf(endpoint, body, text), mockResponse as Record<string, unknown>);
    return;
  }
  // Leading space is cut off first: `\s*\S…` tried at each of a megabyte of spaces is quadratic.
  const lead = /^\s*/u.exec(text)?.[0] ?? "";
  const pieces = text.slice(lead.length).match(/\S{1,256}\s*/gu) ?? [];
  if (lead && pieces.length) pieces[0] = lead + pieces[0];
  yield* FORMATS[endpoint.format].mockStream(answerOf(endpoint, body, text), pieces);
}
