/**
 * Streams a redaction cannot be written back into as they come: a redaction is written back into
 * the events that carried the text, which works while the texts arrive one after another. The
 * texts of several choices (`n > 1`) interleave event by event, so such a stream is asked of the
 * upstream whole and streamed to the client choice after choice (`regroupsStream`). An Anthropic
 * tool_use block streams its input as raw JSON while the output side reads the strings inside it,
 * so a guardrail that redacts it is refused with a 400 naming it rather than let its redaction be
 * skipped. A deny needs no rewriting: it holds every choice and tool call as they come.
 */
import type { RequestType } from "../../core/index.js";
import { GatewayError } from "../errors.js";
import type { StreamHold } from "../routing/stream-mode.js";

function names(ids: readonly string[]): string {
  return `guardrail${ids.length > 1 ? "s" : ""} ${ids.map((id) => `"${id}"`).join(", ")}`;
}

/**
 * Whether a streamed request's choices must come whole from the upstream and go to the client one
 * after another: several choices under a guardrail that redacts a held stream.
 */
export function regroupsStream(hold: StreamHold, requestType: RequestType, body: Record<string, unknown>): boolean {
  if (hold.mode === "after" || !hold.redactors?.length) return false;
  return (requestType === "chatComplete" || requestType === "complete") && typeof body.n === "number" && body.n > 1;
}

/** Throws a 400 `stream_not_checkable` when a streamed request asks for what its redacting guardrails cannot rewrite. */
export function assertStreamCheckable(hold: StreamHold, requestType: RequestType, body: Record<string, unknown>): void {
  if (hold.mode === "after" || !hold.redactors?.length) return;
  const tools = hold.toolRedactors ?? [];
  if (requestType === "messages" && Array.isArray(body.tools) && body.tools.length > 0 && tools.length) {
    throw new GatewayError(
      "stream_not_checkable",
      `${names(tools)} redact${tools.length > 1 ? "" : "s"} tool-call input, which cannot be done on a streamed tool_use block: ask for stream: false, or set tool_arguments: false on the guardrail`,
    );
  }
}
