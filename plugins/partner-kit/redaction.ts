/**
 * Redaction by a partner: a service that returns the text masked, or the spans it found, lets
 * the check rewrite the request or response (`redact: true`). The masked text goes back through
 * the engine's write-back (core/content.ts), which keeps the request type's shape: parts stay
 * parts, blocks stay blocks, only the evaluated text changes.
 */
import type { CheckContext, CheckOutcome } from "../../core/index.js";
import { replaceSpans, type Span, withoutOverlaps } from "../default/shared/scanning/spans.js";

/** A span a service found, with the label it is replaced by. */
export interface LabelledSpan extends Span {
  label: string;
}

/**
 * The text with each span replaced by `[label]`; overlapping spans keep the longer one, and spans
 * outside the text are clipped to it.
 */
export function maskSpans(text: string, spans: readonly LabelledSpan[]): string {
  const inside = spans
    .map((s) => ({ ...s, start: Math.max(0, Math.min(s.start, text.length)), end: Math.max(0, Math.min(s.end, text.length)) }))
    .filter((s) => s.end > s.start);
  const kept = withoutOverlaps(inside, (a, b) => a.end - a.start > b.end - b.start);
  return replaceSpans(text, kept, (s) => `[${s.label}]`);
}

/**
 * The part of a check's outcome that applies a service's masked text: empty when the text did not
 * change, else the new evaluated text, which the engine writes back into the body of the check's
 * side keeping its shape.
 */
export function redactionOutcome(context: Pick<CheckContext, "text">, masked: string): Pick<CheckOutcome, "transformedText"> {
  return masked === context.text ? {} : { transformedText: masked };
}
