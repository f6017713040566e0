/**
 * An OpenAI-format stream read as chunk objects, event by event: `data:` chunks until `[DONE]`.
 * A stream that ends before `[DONE]` is incomplete, and an `error` the provider sends instead of a
 * chunk ends it with that error, so the relay ends the client's stream with its error event.
 */
import { GatewayError } from "../../../errors.js";
import { eventObject } from "../../../formats/format.js";
import { sseEvents } from "../../../formats/sse.js";
import type { Json } from "../../kind.js";

export async function* openAiChunks(source: AsyncIterable<Buffer>): AsyncGenerator<Json> {
  for await (const event of sseEvents(source)) {
    if (event.data.trim() === "[DONE]") return;
    const chunk = eventObject(event.data);
    if (!chunk) {
      // Keep-alive comments carry no data; anything else unreadable is not a stream to pass on.
      if (!event.data.trim()) continue;
      throw new GatewayError("upstream_invalid_response", "the provider's stream sent an event that is not a JSON object");
    }
    const error = chunk.error as { message?: unknown } | undefined;
    if (error && typeof error === "object") {
      const message = typeof error.message === "string" ? error.message : "the provider reported an error";
      throw new GatewayError("upstream_stream_error", `the provider's stream failed: ${message}`);
    }
    yield chunk;
  }
  throw new GatewayError("upstream_stream_incomplete", "the provider's stream ended without [DONE]");
}
