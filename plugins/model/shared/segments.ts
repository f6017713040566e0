/**
 * The sentences and lines of a text, as spans scored on their own by the prompt-injection model:
 * one injected sentence in a long e-mail is a small part of any window around it, but the whole
 * of its own span. Sentence ends are found for scripts that mark them with a full stop, a question
 * or exclamation mark followed by white space (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari's
 * danda) and for CJK full-width marks, which need no space after them.
 */

/** A span of a text by its offsets. */
export interface Span {
  start: number;
  end: number;
}

/** A line with something on it. */
const LINE = /[^\n]*\S[^\n]*/g;
/** The end of a sentence inside a line: the mark (and closing quotes or brackets) and the white space after it. */
const SENTENCE_END = /[.!?;…؟।]+["'”’»)\]]*\s+|[。！？；]+["'”’」』）]*\s*/gu;

/**
 * Sentences shorter than this are joined to the next one: "Stop." or "Note:" alone say too little
 * for the model, and an attack cut into short sentences is read whole.
 */
export const MIN_SEGMENT = 24;

/**
 * The spans of a text to score on their own: each sentence of at least MIN_SEGMENT characters
 * (shorter ones joined to the next), and each line that holds more than one of them, both at most
 * `maxLength` characters long (a longer span is read by the windows). Spans equal to the whole
 * trimmed text are left out: the windows score it already.
 */
export function segments(text: string, maxLength: number): Span[] {
  const found: Span[] = [];
  const whole = trimmed(text, 0, text.length);
  const push = (span: Span | undefined) => {
    if (span === undefined) return;
    const length = span.end - span.start;
    if (length < MIN_SEGMENT || length > maxLength) return;
    if (span.start === whole?.start && span.end === whole.end) return;
    found.push(span);
  };
  for (const line of text.matchAll(LINE)) {
    const lineStart = line.index;
    const lineEnd = lineStart + line[0].length;
    let sentenceStart = lineStart;
    let sentences = 0;
    for (const end of line[0].matchAll(SENTENCE_END)) {
      const cut = lineStart + end.index + end[0].length;
      const sentence = trimmed(text, sentenceStart, cut);
      if (sentence === undefined || sentence.end - sentence.start < MIN_SEGMENT) continue;
      push(sentence);
      sentences++;
      sentenceStart = cut;
    }
    const last = trimmed(text, sentenceStart, lineEnd);
    if (last !== undefined) {
      // A short tail is read with the sentence before it, through the line.
      if (last.end - last.start >= MIN_SEGMENT || sentences === 0) push(last);
      sentences++;
    }
    if (sentences > 1) push(trimmed(text, lineStart, lineEnd));
  }
  return found;
}

/** The span from `start` to `end` without white space at either end; undefined when nothing is left. */
function trimmed(text: string, start: number, end: number): Span | undefined {
  while (start < end && /\s/.test(text[start] as string)) start++;
  while (end > start && /\s/.test(text[end - 1] as string)) end--;
  return end > start ? { start, end } : undefined;
}
