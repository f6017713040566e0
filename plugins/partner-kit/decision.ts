/**
 * What a partner said, kept in a check's `data` so the request log shows why: the vendor's
 * decision fields (categories, scores, detectors, its request id) without the evaluated text,
 * which some services echo back and which the request log must not hold twice.
 */

/** Text this long or longer that is part of the evaluated text is dropped from kept answers. */
const ECHO_MIN_LENGTH = 12;
const MAX_DEPTH = 12;
/** Placeholder for a dropped echo. */
export const OMITTED_TEXT = "[evaluated text omitted]";

function trim(value: unknown, texts: readonly string[], omit: ReadonlySet<string>, depth: number): unknown {
  if (typeof value === "string") {
    if (value.length >= ECHO_MIN_LENGTH && texts.some((text) => text.includes(value) || value.includes(text)))
      return OMITTED_TEXT;
    return value;
  }
  if (typeof value !== "object" || value === null || depth > MAX_DEPTH) return depth > MAX_DEPTH ? undefined : value;
  if (Array.isArray(value)) return value.map((item) => trim(item, texts, omit, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (omit.has(key)) continue;
    const kept = trim(item, texts, omit, depth + 1);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

/**
 * A copy of a vendor's answer (or part of one) fit for `data`: keys named in `omit` dropped (the
 * fields a vendor echoes text in, such as `text` or `redactedText`), and any other string that is
 * a long enough piece of the evaluated text replaced by a placeholder.
 */
export function decisionData<T>(value: T, evaluatedText: string | readonly string[], omit: readonly string[] = []): T {
  const texts = (typeof evaluatedText === "string" ? [evaluatedText] : [...evaluatedText]).filter(
    (t) => t.length >= ECHO_MIN_LENGTH,
  );
  return trim(value, texts, new Set(omit), 0) as T;
}

/** The outcome of a partner check with no text to evaluate: it passes without calling the service. */
export function nothingToEvaluate(serviceName: string): { verdict: true; data: Record<string, unknown> } {
  return {
    verdict: true,
    data: { verdict: true, explanation: `There is no text to evaluate, so ${serviceName} was not called.` },
  };
}
