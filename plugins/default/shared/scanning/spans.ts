/** Findings as spans of a text: overlap resolution and replacement, shared by the detectors. */

/** A finding's place in the text: [start, end) in UTF-16 units. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Keeps spans that do not overlap, scanning in text order: when two overlap, the one `better`
 * prefers stays. Linear after the sort.
 */
export function withoutOverlaps<T extends Span>(spans: T[], better: (a: T, b: T) => boolean): T[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: T[] = [];
  for (const span of sorted) {
    const last = kept[kept.length - 1];
    if (!last || span.start >= last.end) kept.push(span);
    else if (better(span, last)) kept[kept.length - 1] = span;
  }
  // A span that replaces the last one starts at or after it, so it cannot reach an earlier one.
  return kept;
}

/** The text with each span (sorted, without overlaps) replaced by `label(span)`. */
export function replaceSpans<T extends Span>(text: string, spans: readonly T[], label: (span: T) => string): string {
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let at = 0;
  for (const span of spans) {
    parts.push(text.slice(at, span.start), label(span));
    at = span.end;
  }
  parts.push(text.slice(at));
  return parts.join("");
}

/** Number of spans per label, in order of first appearance. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}
