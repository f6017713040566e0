/**
 * Language detection for `model.language`: the `eld` detector (its extra-small n-gram table, which
 * ships inside the npm package) run over sentence-sized chunks, so a text mixing languages reports
 * each one with the share of letters it holds. The table is loaded on first use, so a worker that
 * never runs the check does not pay its ~29 MB.
 */

/** One language found in a text. */
export interface DetectedLanguage {
  /** ISO 639-1 code. */
  language: string;
  /** Share of the text's detected letters written in it, 0–1. */
  share: number;
  /** The detector's score for it, averaged over its chunks weighted by letters, 0–1. */
  confidence: number;
}

/** What the detector made of a text. */
export interface LanguageReport {
  /** Languages by decreasing share; empty when nothing could be detected. */
  languages: DetectedLanguage[];
  /** Letters in the text (any script; a Chinese, Japanese or Korean character counts as two). */
  letters: number;
}

interface Detector {
  detect(text: string): { language: string; getScores(): Record<string, number> };
  info(): { Languages: Record<number, string> };
}

let detector: Promise<Detector> | undefined;

/** The detector's table, loaded on first use (or ahead of it, by the check's `load`). */
export function loadDetector(): Promise<Detector> {
  detector ??= import("eld/extrasmall").then((module) => module.eld as Detector);
  return detector;
}

/** The ISO 639-1 codes the detector knows. */
export async function detectableLanguages(): Promise<string[]> {
  return Object.values((await loadDetector()).info().Languages);
}

/**
 * Below this many letters a chunk is joined to the next. Measured on the 2,880 XQuAD paragraphs
 * (docs/models-language.md): chunks of 40 letters misread a sentence often enough to fail 1.0 % of
 * single-language paragraphs, 120 letters 0.4 %, 250 letters 0.2 %; and each detector call costs
 * about 0.25 ms on top of its text, so 250-letter chunks made a 10 KB text cost 14 ms against 2 ms
 * in one call. At 1,000 letters a text of a few paragraphs costs a few calls, a chat message one;
 * a language must fill about a paragraph to be reported on its own.
 */
const CHUNK_LETTERS = 1000;
/** Sentence ends and line breaks: where a text may switch language. */
const SENTENCE_END = /(?<=[.!?;。！？؟।\n])\s*/u;
const NOT_LETTER = /\P{L}+/gu;
/** Scripts whose one character is closer to a word than to a letter. */
// Code-point ranges rather than script properties: the same characters here, and several times faster.
const NOT_DENSE = /[^\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+/gu;

/**
 * Letters, with a character of Chinese, Japanese or Korean counted twice: a 7-character Chinese
 * question says as much as a 14-letter Latin one, and the detector tells it as surely.
 */
export function countLetters(text: string): number {
  return text.replace(NOT_LETTER, "").length + text.replace(NOT_DENSE, "").length;
}

/** Sentence-sized chunks of at least CHUNK_LETTERS letters (the last one may hold fewer). */
function chunks(text: string): Array<{ text: string; letters: number }> {
  const out: Array<{ text: string; letters: number }> = [];
  let current = "";
  let letters = 0;
  for (const sentence of text.split(SENTENCE_END)) {
    current += current ? ` ${sentence}` : sentence;
    letters += countLetters(sentence);
    if (letters >= CHUNK_LETTERS) {
      out.push({ text: current, letters });
      current = "";
      letters = 0;
    }
  }
  if (letters > 0) {
    // A short tail reads better with the chunk before it than alone.
    const last = out.at(-1);
    if (last && letters < CHUNK_LETTERS) {
      last.text += ` ${current}`;
      last.letters += letters;
    } else out.push({ text: current, letters });
  }
  return out;
}

/** Detects the languages of a text, with the share of letters and the detector's confidence for each. */
export async function detectLanguages(text: string): Promise<LanguageReport> {
  const eld = await loadDetector();
  const totals = new Map<string, { letters: number; weighted: number }>();
  let letters = 0;
  let detected = 0;
  for (const chunk of chunks(text)) {
    letters += chunk.letters;
    const result = eld.detect(chunk.text);
    if (!result.language) continue;
    const confidence = Math.min(1, result.getScores()[result.language] ?? 0);
    const total = totals.get(result.language) ?? { letters: 0, weighted: 0 };
    total.letters += chunk.letters;
    total.weighted += confidence * chunk.letters;
    totals.set(result.language, total);
    detected += chunk.letters;
  }
  const languages = [...totals]
    .map(([language, t]) => ({
      language,
      share: round(t.letters / detected),
      confidence: round(t.weighted / t.letters),
    }))
    .sort((a, b) => b.share - a.share || a.language.localeCompare(b.language));
  return { languages, letters };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
