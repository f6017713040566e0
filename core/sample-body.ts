/**
 * The smallest body of each request type whose evaluated text is a given text: what the
 * `guardgate check --text` command and the test helpers evaluate.
 */
import { GuardgateError } from "./errors.js";
import type { RequestType, Side } from "./types.js";

/** A request (input side) or response (output side) body of `requestType` holding `text`. */
export function bodyForText(side: Side, requestType: RequestType, text: string): unknown {
  if (side === "input") {
    switch (requestType) {
      case "chatComplete":
      case "messages":
        return { messages: [{ role: "user", content: text }] };
      case "complete":
        return { prompt: text };
      case "embed":
        return { input: text };
      case "responses":
        return { input: [{ role: "user", content: text }] };
    }
  }
  switch (requestType) {
    case "chatComplete":
      return { choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] };
    case "complete":
      return { choices: [{ index: 0, text, finish_reason: "stop" }] };
    case "messages":
      return { role: "assistant", content: [{ type: "text", text }] };
    case "responses":
      return { object: "response", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }] };
    case "embed":
      throw new GuardgateError("invalid_side", "the output side does not apply to embed: embeddings carry no text");
  }
  throw new GuardgateError(
    "invalid_request_type",
    `"${String(requestType)}" is not one of chatComplete, complete, embed, messages, responses`,
  );
}
