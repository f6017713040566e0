/**
 * An OpenAI chat completion as a Response object: the first choice's text as a `message` item with
 * one `output_text` part, each tool call as a `function_call` item, the usage in the Responses
 * API's terms, and a finish by length as `status: "incomplete"` with its reason. The request's
 * settings are echoed as the OpenAI API echoes them, so the SDKs find every field they read.
 */
import { randomBytes } from "node:crypto";
import type { Json } from "../kind.js";
import { isJson, jsonItems, nowSeconds } from "../translate.js";

/** A new id of a Response object or one of its items: `resp_…`, `msg_…`, `fc_…`. */
export function responsesId(prefix: "resp" | "msg" | "fc"): string {
  return `${prefix}_${randomBytes(16).toString("hex")}`;
}

/** Responses usage from OpenAI chat usage, whose prompt tokens include the cached ones as the Responses API's do. */
export function responsesUsage(usage: unknown): Json {
  const chat = isJson(usage) ? usage : {};
  const input = Number(chat.prompt_tokens ?? 0);
  const output = Number(chat.completion_tokens ?? 0);
  const prompt = isJson(chat.prompt_tokens_details) ? chat.prompt_tokens_details : {};
  const completion = isJson(chat.completion_tokens_details) ? chat.completion_tokens_details : {};
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: Number(prompt.cached_tokens ?? 0) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: Number(completion.reasoning_tokens ?? 0) },
    total_tokens: Number(chat.total_tokens ?? input + output),
  };
}

/** How a chat finish reason ends a response: complete, or incomplete with the Responses API's reason. */
export function endOf(finish: unknown): { status: "completed" | "incomplete"; incomplete_details: Json | null } {
  if (finish === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finish === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

/** A Response object's fields other than its output, usage and end, from the request it answers. */
export function responseShell(id: string, body: Json, model: unknown, createdAt: number): Json {
  const reasoning = isJson(body.reasoning) ? body.reasoning : {};
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: typeof model === "string" ? model : (body.model ?? null),
    output: [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: isJson(body.text) ? body.text : { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: null,
    user: body.user ?? null,
    metadata: isJson(body.metadata) ? body.metadata : {},
  };
}

/** A finished `message` item holding one text. */
export function messageItem(id: string, text: string): Json {
  return {
    type: "message",
    id,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
  };
}

/** A finished `function_call` item. */
export function functionCallItem(id: string, callId: string, name: string, args: string): Json {
  return { type: "function_call", id, call_id: callId, name, arguments: args, status: "completed" };
}

/** The Response object answering `body` with a chat completion. */
export function responseOfCompletion(completion: Json, body: Json): Json {
  const choice = jsonItems(completion.choices)[0] ?? {};
  const message = isJson(choice.message) ? choice.message : {};
  const output: Json[] = [];
  const text = typeof message.content === "string" ? message.content : typeof message.refusal === "string" ? message.refusal : "";
  if (text) output.push(messageItem(responsesId("msg"), text));
  for (const call of jsonItems(message.tool_calls)) {
    const fn = isJson(call.function) ? call.function : {};
    const callId = typeof call.id === "string" ? call.id : responsesId("fc");
    output.push(
      functionCallItem(responsesId("fc"), callId, String(fn.name ?? ""), typeof fn.arguments === "string" ? fn.arguments : ""),
    );
  }
  const created = typeof completion.created === "number" ? completion.created : nowSeconds();
  return {
    ...responseShell(responsesId("resp"), body, completion.model, created),
    ...endOf(choice.finish_reason),
    output,
    usage: responsesUsage(completion.usage),
  };
}
