/**
 * The checks `npm run eval:models` evaluates, declared as data: which check (any registered id,
 * run through the engine like a request), with which parameters, which label a failing verdict
 * stands for, and the labelled rows it is evaluated on by default. A new model check is evaluated
 * by adding an entry here.
 */
import path from "node:path";
import { GIBBERISH_DIR, jsonlFiles, partOf, promptInjectionFiles, PROMPT_INJECTION_DIR, readRows, type Row } from "./dataset.js";
import { gibberishLabelledFiles, WRITTEN_GIBBERISH_DIR } from "./gibberish-training.js";

/** One check under evaluation. */
export interface EvaluatedCheck {
  /** The check id, e.g. `model.promptInjection`. */
  check: string;
  parameters: Record<string, unknown>;
  /** What the check detects: rows labelled 1 should fail it, rows labelled 0 pass it. */
  detects: string;
  /** The rows it is evaluated on when no folder is given; empty when the data is missing. */
  defaultRows(): Row[];
  /** Which folders given on the command line it is evaluated on (by folder path). */
  accepts(dir: string): boolean;
}

/** The test part of the split of labelled files (never trained on, never tuned to). */
function testPart(files: string[]): Row[] {
  return files.flatMap((f) => readRows(f).rows).filter((r) => partOf(r.text) === "test");
}

/** The languages of the XQuAD questions (category `xquad_question_<code>`). */
const XQUAD_LANGUAGES = ["ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh"] as const;

/**
 * The XQuAD questions relabelled for `model.language` with `allow: [language]`: the language's
 * own questions should pass (label 0), the other languages' should fail (label 1). The detector is
 * not trained on them, so every row counts.
 */
function languageRows(language: string): Row[] {
  const file = path.join(PROMPT_INJECTION_DIR, "xquad-questions-benign.jsonl");
  if (!jsonlFiles(PROMPT_INJECTION_DIR).includes(file)) return [];
  return readRows(file).rows.map((r) => ({ ...r, label: r.category === `xquad_question_${language}` ? 0 : 1 }));
}

export const EVALUATED_CHECKS: EvaluatedCheck[] = [
  {
    check: "model.promptInjection",
    parameters: {},
    detects: "prompt injection or jailbreak",
    defaultRows: () => (jsonlFiles(PROMPT_INJECTION_DIR).length === 0 ? [] : testPart(promptInjectionFiles())),
    accepts: (dir) => !path.resolve(dir).startsWith(GIBBERISH_DIR) && !path.resolve(dir).startsWith(WRITTEN_GIBBERISH_DIR),
  },
  {
    check: "model.gibberish",
    parameters: {},
    detects: "gibberish",
    defaultRows: () => (jsonlFiles(GIBBERISH_DIR).length === 0 ? [] : testPart(gibberishLabelledFiles())),
    accepts: (dir) => path.resolve(dir).startsWith(GIBBERISH_DIR) || path.resolve(dir).startsWith(WRITTEN_GIBBERISH_DIR),
  },
  // model.language with each XQuAD language allowed in turn; rows of other folders carry no
  // language label, so it is evaluated on its default rows only.
  ...XQUAD_LANGUAGES.map((language): EvaluatedCheck => ({
    check: "model.language",
    parameters: { allow: [language] },
    detects: `a language other than ${language}`,
    defaultRows: () => languageRows(language),
    accepts: () => false,
  })),
];
