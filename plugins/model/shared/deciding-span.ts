/**
 * The span that decided a prompt-injection score, as the check reports it: its kind, its text
 * trimmed to a readable length (for a decoded payload, what it decoded to) and its offsets.
 */
import type { InjectionScore } from "./prompt-injection-model.js";

/** The longest span text reported; a window is longer, and the offsets still name all of it. */
export const SPAN_TEXT_MAX = 240;

/** What `data.span` holds: where the span lies, never its text (that is `data.spanText`). */
export interface DecidingSpan {
  kind: InjectionScore["kind"];
  start: number;
  end: number;
  scored: number;
}

/** White space runs made one space, trimmed, cut at SPAN_TEXT_MAX characters with an ellipsis. */
function readable(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= SPAN_TEXT_MAX ? flat : `${flat.slice(0, SPAN_TEXT_MAX - 1).trimEnd()}…`;
}

/** The deciding span of `result`, a score of `text`, and its text as reported. */
export function decidingSpan(text: string, result: InjectionScore): { span: DecidingSpan; text: string } {
  const source = result.decoded?.text ?? text.slice(result.start, result.end);
  return {
    span: { kind: result.kind, start: result.start, end: result.end, scored: result.spans },
    text: readable(source),
  };
}
