import { defineCheck, textExcerpt } from "../../../core/index.js";

import { calibrated, GIBBERISH_FEATURES, gibberishModel, measure } from "../shared/gibberish-model.js";

interface Parameters {
  threshold?: number;
}

/** Characters per scored window; a window ends at the first white space past this length. */
const WINDOW = 512;
const features = new Float64Array(GIBBERISH_FEATURES.length);

/** Where the window starting at `start` ends: the first white space at or past WINDOW characters. */
function windowEnd(text: string, start: number): number {
  if (text.length - start <= WINDOW * 1.5) return text.length;
  for (let i = start + WINDOW; i < Math.min(text.length, start + WINDOW * 1.5); i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x09) return i + 1;
  }
  return start + WINDOW;
}

/**
 * Scores the text with the gibberish model shipped in the package: a character trigram model per
 * script and word statistics of a natural-text corpus, calibrated on labelled examples. Fails when
 * the score reaches the threshold.
 */
export default defineCheck<Parameters>({
  id: "gibberish",
  name: "Gibberish (local model)",
  description:
    "Scores how much the text looks like gibberish (key mashes, random letters, shuffled letters, symbol noise, words mixing look-alike letters of several scripts, letter-and-digit mash) with a local character model per script, and fails when the score reaches the threshold.",
  sides: ["input", "output"],
  parameters: {
    type: "object",
    properties: {
      threshold: {
        type: "number",
        minimum: 0,
        maximum: 1,
        description:
          "Score (0–1) at or above which the text counts as gibberish. Defaults to the threshold chosen on the validation split (see notes).",
      },
    },
    additionalProperties: false,
  },
  data: {
    score: { type: "number", description: "Probability (0–1) that the text is gibberish: the highest of its windows." },
    threshold: { type: "number", description: "The threshold applied." },
    label: { type: "string", description: '"gibberish" when the score reached the threshold, otherwise "natural".' },
    gibberishShare: {
      type: "number",
      description: "Share (0–1) of the letters of modelled scripts that stand in words judged gibberish on their own.",
    },
    windows: { type: "number", description: "Windows of about 512 characters scored." },
    verdict: { type: "boolean", description: "The check's verdict." },
    explanation: { type: "string", description: "The score against the threshold and the share of gibberish words." },
    textExcerpt: { type: "string", description: "The first 100 characters of the evaluated text." },
  },
  examples: [
    {
      parameters: {},
      text: "asdkjh qwpoeiru zmxncb",
      description: "Fail key mashes and random letters.",
      verdict: false,
      data: { label: "gibberish" },
    },
    {
      parameters: { threshold: 0.8 },
      description: "Fail only text that is clearly gibberish.",
      text: "The meeting moved to Thursday at ten.",
      verdict: true,
      data: { label: "natural" },
    },
  ],
  notes: [
    "Runs locally from a weights file shipped in the package: a character trigram model per script (Latin, Cyrillic, Greek, Arabic, Devanagari, Thai) and, for Latin script, word frequencies, word pairs and the letter sets of frequent words (so words with their letters shuffled stand out) of a natural-text corpus and of written romanised sentences of 13 languages, combined by a logistic calibration with the share of words that mix scripts inside them (look-alike Cyrillic, Greek, Armenian or Hebrew letters in Latin words, but not a symbol's one-letter prefix such as ΔT or μm) and of letter-and-digit mash. Capitalised words inside a sentence are read as names and left out of the word statistics. Texts are scored in windows of about 512 characters and the highest score wins; one stray token in a sentence does not make it gibberish. Han, kana and Hangul, and scripts without a model, are never called gibberish.",
    "",
    "On the held-out test split of the labelled sets, mixed-script and leetspeak rows included: precision 0.989, recall 0.974, F1 0.982 with the default threshold (0.37). Code-switching, foreign names, technical tokens and transliteration of the languages the romanised sentences cover pass; short Turkish questions, one-word chat and transliteration of other languages are the common false alarms. See docs/models.md.",
  ].join("\n"),
  load() {
    gibberishModel();
  },
  run({ text }, { threshold }) {
    const model = gibberishModel();
    const applied = threshold ?? model.threshold;
    let score = 0;
    let letters = 0;
    let gibberishLetters = 0;
    let windows = 0;
    for (let start = 0; start < text.length || windows === 0;) {
      const end = windowEnd(text, start);
      const measured = measure(model.tables, text.slice(start, end), features);
      windows++;
      letters += measured.letters;
      gibberishLetters += measured.gibberishLetters;
      // A window without letters of a modelled script (digits, CJK, emoji) is not scored.
      if (measured.letters > 0) score = Math.max(score, calibrated(model.calibration, features));
      start = end;
      if (end >= text.length) break;
    }
    const gibberish = score >= applied;
    const share = letters > 0 ? gibberishLetters / letters : 0;
    return {
      verdict: !gibberish,
      data: {
        score: Number(score.toFixed(4)),
        threshold: applied,
        label: gibberish ? "gibberish" : "natural",
        gibberishShare: Number(share.toFixed(4)),
        windows,
        verdict: !gibberish,
        explanation: `Gibberish score ${score.toFixed(3)} is ${gibberish ? "at or above" : "below"} the threshold ${applied}; ${(share * 100).toFixed(0)}% of the letters stand in words that look like gibberish on their own.`,
        textExcerpt: textExcerpt(text),
      },
    };
  },
});
