/** Text helpers for check authors. */

const EXCERPT_LENGTH = 100;

/**
 * The shortened evaluated text results carry as `textExcerpt`: the first 100 characters (code
 * points, so no emoji is cut in half), followed by "..." when the text was longer.
 */
export function textExcerpt(text: string): string {
  if (text.length <= EXCERPT_LENGTH) return text;
  // 200 UTF-16 units always hold at least 100 code points.
  const points = Array.from(text.slice(0, EXCERPT_LENGTH * 2));
  if (points.length <= EXCERPT_LENGTH && text.length <= EXCERPT_LENGTH * 2) return text;
  return `${points.slice(0, EXCERPT_LENGTH).join("")}...`;
}
