/**
 * An Anthropic message stream as OpenAI chat chunks, event by event: text deltas as content,
 * each tool_use block as a tool call (its id and name first, then its input's JSON as argument
 * deltas), the stop reason as the finish reason, and a last chunk with the usage. A stream that
 * ends before `message_stop` is incomplete; an `error` event ends it with that error.
 */
import { GatewayError } from "../../../errors.js";
import { eventObject } from "../../../formats/format.js";
import { sseEvents } from "../../../formats/sse.js";
import type { Json } from "../../kind.js";
import { isJson, nowSeconds } from "../../translate.js";
import { type AnthropicUsage, chatUsage, finishReasonOf, readUsage } from "./response.js";

export async function* chunksOfMessageStream(source: AsyncIterable<Buffer>, chat: Json): AsyncGenerator<Json> {
  const usage: AnthropicUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let id: unknown = "";
  let model: unknown = chat.model;
  const created = nowSeconds();
  /** OpenAI tool-call index by Anthropic block index. */
  const tools = new Map<number, number>();
  const chunk = (delta: Json, finish: string | null = null): Json => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });

  for await (const event of sseEvents(source)) {
    const payload = eventObject(event.data);
    if (!payload) continue;
    const index = typeof payload.index === "number" ? payload.index : 0;
    switch (payload.type) {
      case "message_start": {
        const message = isJson(payload.message) ? payload.message : {};
        id = message.id ?? id;
        model = message.model ?? model;
        readUsage(usage, message.usage);
        yield chunk({ role: "assistant", content: "" });
        break;
      }
      case "content_block_start": {
        const block = isJson(payload.content_block) ? payload.content_block : {};
        if (block.type === "text" && typeof block.text === "string" && block.text) yield chunk({ content: block.text });
        else if (block.type === "tool_use") {
          const tool = tools.size;
          tools.set(index, tool);
          yield chunk({
            tool_calls: [{ index: tool, id: block.id, type: "function", function: { name: block.name, arguments: "" } }],
          });
        }
        break;
      }
      case "content_block_delta": {
        const delta = isJson(payload.delta) ? payload.delta : {};
        if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text) yield chunk({ content: delta.text });
        else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json) {
          const tool = tools.get(index);
          if (tool !== undefined) yield chunk({ tool_calls: [{ index: tool, function: { arguments: delta.partial_json } }] });
        }
        break;
      }
      case "message_delta": {
        readUsage(usage, payload.usage);
        const delta = isJson(payload.delta) ? payload.delta : {};
        if (delta.stop_reason) yield chunk({}, finishReasonOf(delta.stop_reason));
        break;
      }
      case "message_stop":
        yield { id, object: "chat.completion.chunk", created, model, choices: [], usage: chatUsage(usage) };
        return;
      case "error": {
        const error = isJson(payload.error) ? payload.error : {};
        const message = typeof error.message === "string" ? error.message : "the provider reported an error";
        throw new GatewayError("upstream_stream_error", `the provider's stream failed (${String(error.type)}): ${message}`);
      }
      default:
        // ping, and thinking and signature deltas, which the chat form has no place for.
        break;
    }
  }
  throw new GatewayError("upstream_stream_incomplete", "the provider's stream ended without message_stop");
}
