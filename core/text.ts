/** Text helpers for check authors. */

const EXCERPT_LENGTH = 100;

/**
 * The shortened evaluated text results carry as `textExcerpt`: the first 100 characters (code
 * points, so no emoji is cut in half), followed by "..." when the text was longer.
 */
export function textExcerpt(text: string): string {
  if (text.length <= EXCERPT_LENGTH) return text;
  // Walk 100 code points: a high surrogate followed by a low one is one point, anything else one unit.
  let end = 0;
  for (let points = 0; points < EXCERPT_LENGTH && end < text.length; points++) {
    const unit = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return end >= text.length ? text : `${text.slice(0, end)}...`;
}
