/**
 * What a held stream cannot redact in place, refused before the upstream is called: a redaction
 * is written back into the events that carried the text, which works while the texts arrive one
 * after another. The texts of several choices (`n > 1`) interleave event by event, and an
 * Anthropic tool_use block streams its input as raw JSON while the output side reads the strings
 * inside it, so a guardrail that redacts either is refused with a 400 naming it rather than let
 * its redaction be skipped. A deny needs no rewriting: it holds every choice and tool call.
 */
import type { RequestType } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import type { StreamHold } from "../plan/stream-mode.js";

function names(ids: readonly string[]): string {
  return `guardrail${ids.length > 1 ? "s" : ""} ${ids.map((id) => `"${id}"`).join(", ")}`;
}

/** Throws a 400 `stream_not_checkable` when a streamed request asks for what its redacting guardrails cannot rewrite. */
export function assertStreamCheckable(hold: StreamHold, requestType: RequestType, body: Record<string, unknown>): void {
  if (hold.mode === "after" || !hold.redactors?.length) return;
  const n = body.n;
  if ((requestType === "chatComplete" || requestType === "complete") && typeof n === "number" && n > 1) {
    throw new GatewayError(
      400,
      "stream_not_checkable",
      `${names(hold.redactors)} redact${hold.redactors.length > 1 ? "" : "s"} the answer, which cannot be done on a stream of ${n} choices (their texts interleave): ask for n: 1, or stream: false`,
    );
  }
  const tools = hold.toolRedactors ?? [];
  if (requestType === "messages" && Array.isArray(body.tools) && body.tools.length > 0 && tools.length) {
    throw new GatewayError(
      400,
      "stream_not_checkable",
      `${names(tools)} redact${tools.length > 1 ? "" : "s"} tool-call input, which cannot be done on a streamed tool_use block: ask for stream: false, or set tool_arguments: false on the guardrail`,
    );
  }
}
