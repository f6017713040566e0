/**
 * The Responses API (`POST /v1/responses`), OpenAI's API for agents: a bearer credential and the
 * OpenAI error envelope, as on chat; input items and output items instead of messages and
 * choices; streams of typed events (`event: response.output_text.delta` …) that end with
 * `response.completed` (or `.incomplete`, `.failed`); `input_tokens` / `output_tokens` usage.
 * OpenAI and Azure OpenAI serve it natively (their kinds pass it through); other kinds reach it
 * translated through the chat form.
 */
import type { HookResults } from "../../core/index.js";
import { type SseEvent, SseSplitter } from "./sse.js";
import { eventObject, type ErrorFields, type MockAnswer, type WireFormat } from "./format.js";
import { openai } from "./openai.js";
import {
  messageItem,
  responseAsEvents,
  responseAsPieces,
  responseObject,
  responsesId,
  responsesUsage,
} from "./responses-events.js";
import { ResponsesStreamText } from "./responses-stream-text.js";

function namedEvent(name: string, value: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(value)}\n\n`);
}

/**
 * `out` with `hook` right after its `response.created`: the SDKs' stream helpers build the answer
 * from that event and refuse any event before it.
 */
function afterCreated(out: Buffer, hook: Buffer): Buffer | undefined {
  let offset = 0;
  for (const event of new SseSplitter().push(out)) {
    offset += event.raw.length;
    if (isCreated(event)) return Buffer.concat([out.subarray(0, offset), hook, out.subarray(offset)]);
  }
  return undefined;
}

function isCreated(event: SseEvent): boolean {
  return event.event === "response.created" || eventObject(event.data)?.type === "response.created";
}

const SEQUENCE = /"sequence_number"\s*:\s*(\d+)/g;

/**
 * The number the event after `sent` takes: one past the last `sequence_number` in it (its tail
 * first, since a released window can be long), or 0 when nothing numbered was sent.
 */
export function nextSequence(sent: Buffer | undefined): number {
  if (!sent?.length) return 0;
  for (const from of [Math.max(0, sent.length - 65536), 0]) {
    let last: string | undefined;
    for (const match of sent.subarray(from).toString("utf8").matchAll(SEQUENCE)) last = match[1];
    if (last !== undefined) return Number(last) + 1;
    if (from === 0) break;
  }
  return 0;
}

/** The mock's response object. */
function mockResponse(answer: MockAnswer): Record<string, unknown> {
  return responseObject({
    id: responsesId("resp_mock"),
    model: answer.model,
    createdAt: answer.created,
    status: "completed",
    output: [messageItem(responsesId("msg_mock"), [answer.text])],
    usage: responsesUsage(answer.promptTokens, answer.completionTokens),
    request: answer.request,
  });
}

/** The Responses format. */
export const responses: WireFormat = {
  name: "responses",
  label: "a Responses API",
  endpoints: [{ route: "/v1/responses", upstreamPath: "/responses", requestType: "responses" }],

  credentialHeaders: openai.credentialHeaders,
  callerSecret: openai.callerSecret,
  forwardedHeaders: openai.forwardedHeaders,
  forwardedWithCallerCredential: openai.forwardedWithCallerCredential,
  upstreamDefaults: openai.upstreamDefaults,
  passedBack: openai.passedBack,
  errorBody: openai.errorBody,

  // A `keepalive` event: the SDKs' stream helpers refuse event types they do not know, and pass this one by.
  hookEvent: (hookResults: Partial<HookResults>) => namedEvent("keepalive", { type: "keepalive", hook_results: hookResults }),
  placeOpeningHook: afterCreated,
  // An `error` event (the API's own fields, and `error` as on chat), which the SDKs raise as an APIError.
  streamError: (fields: ErrorFields, hookResults?: Partial<HookResults>, after?: Buffer) => {
    const { error } = openai.errorBody(fields) as { error: Record<string, unknown> };
    return namedEvent("error", {
      type: "error",
      code: fields.code,
      message: fields.message,
      param: fields.param ?? null,
      sequence_number: nextSequence(after),
      error,
      ...(hookResults && { hook_results: hookResults }),
    });
  },
  streamText: () => new ResponsesStreamText(),
  usageFields: { input: "input_tokens", output: "output_tokens" },

  mockBody: mockResponse,
  mockStream: (answer: MockAnswer, pieces: readonly string[]) => responseAsEvents(mockResponse(answer), pieces),
  // A mock_response object (function calls and all) streams as itself, the mock's defaults filling what it leaves out.
  mockObjectStream: (answer: MockAnswer, given: Record<string, unknown>) =>
    responseAsPieces({ ...mockResponse(answer), ...given }),
};
