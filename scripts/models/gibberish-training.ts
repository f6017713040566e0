/**
 * The gibberish model's training recipe: count letter trigrams, bigrams and unigrams per script,
 * words and word pairs from the natural corpus into hashed tables, then fit the logistic
 * calibration on the training part of the labelled set and choose the threshold on its
 * validation part. Deterministic (full-batch gradient descent, fixed order).
 */
import { folded, Kind, Script } from "../../plugins/model/shared/fold.js";
import {
  type Calibration,
  calibrated,
  GIBBERISH_FEATURES,
  GibberishTables,
  letterKey,
  LOGGED_TABLES,
  measure,
  MODELLED_SCRIPTS,
  tableTensors,
} from "../../plugins/model/shared/gibberish-model.js";
import { FNV_OFFSET, FNV_PRIME } from "../../plugins/model/shared/hashed-features.js";
import { encodeWeights } from "../../plugins/model/shared/weights-file.js";
import path from "node:path";
import { type FileRecord, GIBBERISH_DIR, jsonlFiles, metrics, readRows, type Row, seededRandom, WRITTEN_DIR } from "./dataset.js";

/** Labelled gibberish rows written for the model (mixed scripts, leetspeak mash, mixed-language text). */
export const WRITTEN_GIBBERISH_DIR = path.join(WRITTEN_DIR, "gibberish");

/**
 * The labelled files of the gibberish model: the datasets' `gibberish_train.jsonl`, then the
 * written ones. Calibration, threshold and reported figures split them all by `partOf`.
 */
export function gibberishLabelledFiles(): string[] {
  return [path.join(GIBBERISH_DIR, "gibberish_train.jsonl"), ...jsonlFiles(WRITTEN_GIBBERISH_DIR)];
}

/**
 * The natural text the character and word model is counted from: the datasets' corpus, then the
 * sentences written in Latin letters for languages of other scripts (`corpus/`, not labelled rows).
 */
export function gibberishCorpusFiles(): string[] {
  return [path.join(GIBBERISH_DIR, "natural_corpus.jsonl"), ...jsonlFiles(path.join(WRITTEN_GIBBERISH_DIR, "corpus"))];
}

/** The rows of the corpus files, and the files' records for the weights header. */
export function gibberishCorpus(): { rows: Row[]; records: FileRecord[] } {
  const read = gibberishCorpusFiles().map(readRows);
  return { rows: read.flatMap((r) => r.rows), records: read.map((r) => r.record) };
}

/** The rows of every labelled file, and the files' records for the weights header. */
export function gibberishLabelled(): { rows: Row[]; records: FileRecord[] } {
  const read = gibberishLabelledFiles().map(readRows);
  return { rows: read.flatMap((r) => r.rows), records: read.map((r) => r.record) };
}

/** Bumped whenever the recipe changes what a given input produces. */
export const GIBBERISH_TRAINER_VERSION = "gibberish-trainer/4";

const BOUNDARY = 0x20;

/** Adds a weighted count to a table entry. */
const add = (table: Float32Array, index: number, weight: number) => {
  table[index] = (table[index] as number) + weight;
};

/** Counts one natural text into the tables. */
function count(
  tables: GibberishTables,
  text: string,
  alphabets: Map<number, Set<number>>,
  latin: Map<string, number>,
  weight: number,
): void {
  let script = 0;
  let letters: number[] = [];
  let hash = FNV_OFFSET;
  let previous = 0;
  let hasPrevious = false;
  const endWord = () => {
    if (letters.length === 0) return;
    if (MODELLED_SCRIPTS.includes(script)) {
      const seq = [BOUNDARY, BOUNDARY, ...letters, BOUNDARY];
      for (let i = 2; i < seq.length; i++) {
        const [a, b, c] = [seq[i - 2] as number, seq[i - 1] as number, seq[i] as number];
        add(tables.trigram, tables.triIndex(script, a, b, c), weight);
        add(tables.bigram, tables.biIndex(script, b, c), weight);
        add(tables.unigram, tables.uniIndex(script, c), weight);
        add(tables.totals, script, weight);
      }
      // The first context (boundary, boundary) as a bigram, so trigram estimates have a denominator.
      add(tables.bigram, tables.biIndex(script, BOUNDARY, BOUNDARY), weight);
      add(tables.unigram, tables.uniIndex(script, BOUNDARY), weight);
      add(tables.words, tables.wordIndex(hash), weight);
      if (hasPrevious) tables.pairs[tables.pairIndex(previous, hash)] = 1;
      previous = hash;
      hasPrevious = true;
      if (script === Script.Latin) {
        const word = String.fromCharCode(...letters);
        latin.set(word, (latin.get(word) ?? 0) + weight);
      }
      let alphabet = alphabets.get(script);
      if (!alphabet) alphabets.set(script, (alphabet = new Set()));
      for (const l of letters) alphabet.add(l);
    } else hasPrevious = false;
    letters = [];
    hash = FNV_OFFSET;
  };
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) as number;
    i += cp > 0xffff ? 2 : 1;
    const f = folded(cp);
    if (f.kind === Kind.Ignored) continue;
    if (f.kind === Kind.Latin || f.kind === Kind.Foreign) {
      if (letters.length > 0 && f.script !== script) endWord();
      script = f.script;
      const c = f.text.charCodeAt(0) || cp;
      letters.push(c);
      hash = Math.imul(hash ^ c, FNV_PRIME);
      continue;
    }
    endWord();
    if (f.kind === Kind.Other) hasPrevious = false;
  }
  endWord();
}

/**
 * Natural rows of six or more words with one random-letter token put in (label 0, generated): a
 * stray token in a sentence is not gibberish, and the calibration should learn so.
 */
export function withStrayTokens(rows: readonly Row[]): Row[] {
  const random = seededRandom(7);
  const letters = "qwertyuiopasdfghjklzxcvbnm";
  return rows
    .filter((r) => r.label === 0 && r.text.split(" ").length >= 6)
    .map((r) => {
      const words = r.text.split(" ");
      const token = Array.from({ length: 4 + Math.floor(random() * 6) }, () => letters[Math.floor(random() * 26)]).join("");
      words.splice(1 + Math.floor(random() * (words.length - 1)), 0, token);
      return { ...r, text: words.join(" "), source: "generated:stray-token", category: "generated_natural_with_stray_token" };
    });
}

/** Fits a standardised logistic regression by full-batch gradient descent. */
export function fitCalibration(features: Float64Array[], labels: number[]): Calibration {
  const d = GIBBERISH_FEATURES.length;
  const measured = (j: number) => features.map((f) => f[j] as number).filter((v) => !Number.isNaN(v));
  const mean = Array.from({ length: d }, (_, j) => measured(j).reduce((s, v) => s + v, 0) / Math.max(1, measured(j).length));
  const scale = Array.from({ length: d }, (_, j) => {
    const values = measured(j);
    const v = values.reduce((s, x) => s + (x - (mean[j] as number)) ** 2, 0) / Math.max(1, values.length);
    return Math.sqrt(v) || 1;
  });
  const calibration: Calibration = { weights: new Array<number>(d).fill(0), bias: 0, mean, scale };
  const rate = 0.5;
  const l2 = 1e-3;
  for (let step = 0; step < 2000; step++) {
    const grad = new Array<number>(d).fill(0);
    let gb = 0;
    features.forEach((f, i) => {
      const g = calibrated(calibration, f) - (labels[i] as number);
      for (let j = 0; j < d; j++) {
        if (!Number.isNaN(f[j]))
          grad[j] = (grad[j] as number) + (g * ((f[j] as number) - (mean[j] as number))) / (scale[j] as number);
      }
      gb += g;
    });
    for (let j = 0; j < d; j++) {
      calibration.weights[j] =
        (calibration.weights[j] as number) -
        rate * ((grad[j] as number) / features.length + l2 * (calibration.weights[j] as number));
    }
    calibration.bias -= (rate * gb) / features.length;
  }
  calibration.weights = calibration.weights.map((w) => Number(w.toFixed(6)));
  calibration.bias = Number(calibration.bias.toFixed(6));
  calibration.mean = mean.map((m) => Number(m.toFixed(6)));
  calibration.scale = scale.map((s) => Number(s.toFixed(6)));
  return calibration;
}

/** A trained gibberish model and its weights file. */
export interface TrainedGibberish {
  tables: GibberishTables;
  calibration: Calibration;
  threshold: number;
  bytes: Buffer;
}

/** The language a corpus row is in, from its category (`corpus_<code>_…`). */
const corpusLanguage = (row: Row) => /^corpus_([a-z]{2}(?:-latn)?)_/.exec(row.category)?.[1] ?? "";

/**
 * Romanisations of the Cyrillic and Greek letters, as people type those languages on a Latin
 * keyboard ("spasibo", "kalimera"). Counting romanised copies of the corpus's Russian and Greek
 * rows teaches the Latin model the letter sequences of transliterated text, so it is not taken
 * for a mash.
 */
const ROMANISED: Record<string, string> = {
  а: "a",
  б: "b",
  в: "v",
  г: "g",
  д: "d",
  е: "e",
  ё: "yo",
  ж: "zh",
  з: "z",
  и: "i",
  й: "y",
  к: "k",
  л: "l",
  м: "m",
  н: "n",
  о: "o",
  п: "p",
  р: "r",
  с: "s",
  т: "t",
  у: "u",
  ф: "f",
  х: "kh",
  ц: "ts",
  ч: "ch",
  ш: "sh",
  щ: "shch",
  ъ: "",
  ы: "y",
  ь: "",
  э: "e",
  ю: "yu",
  я: "ya",
  і: "i",
  ї: "yi",
  є: "ye",
  ґ: "g",
  α: "a",
  β: "v",
  γ: "g",
  δ: "d",
  ε: "e",
  ζ: "z",
  η: "i",
  θ: "th",
  ι: "i",
  κ: "k",
  λ: "l",
  μ: "m",
  ν: "n",
  ξ: "x",
  ο: "o",
  π: "p",
  ρ: "r",
  σ: "s",
  ς: "s",
  τ: "t",
  υ: "y",
  φ: "f",
  χ: "ch",
  ψ: "ps",
  ω: "o",
};

/** A text with its Cyrillic and Greek letters romanised (lower case, accents dropped). */
export function romanised(text: string): string {
  let out = "";
  for (const char of text.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "")) out += ROMANISED[char] ?? char;
  return out;
}

/** The corpus with romanised copies of the rows of the languages named, as languages of their own (`ru-latn`). */
function withRomanised(corpus: readonly Row[], languages: readonly string[]): Row[] {
  const copies = corpus
    .filter((row) => languages.includes(corpusLanguage(row)))
    .map((row) => ({
      ...row,
      text: romanised(row.text),
      category: row.category.replace(/^corpus_([a-z]{2})_/, "corpus_$1-latn_"),
    }));
  return [...corpus, ...copies];
}

/**
 * How much each corpus row counts: English fills most of the corpus (books and Wikipedia
 * sentences) and the other languages one set of paragraphs each, so their words and letter
 * sequences would look rare next to English ones. Each language's rows are weighted by
 * (English characters / its characters) ^ balance: 0 counts every row once, 1 gives every
 * language the same mass. Rows of the written romanised corpus (category `…_written`) count
 * `writtenWeight` times each instead.
 */
export function corpusWeights(corpus: readonly Row[], balance: number, writtenWeight = 1): number[] {
  const chars = new Map<string, number>();
  for (const row of corpus) chars.set(corpusLanguage(row), (chars.get(corpusLanguage(row)) ?? 0) + row.text.length);
  const english = chars.get("en") ?? 0;
  return corpus.map((row) => {
    // The written romanised sentences are too few for their language's share to be made up to English's.
    if (row.category.endsWith("_written")) return writtenWeight;
    const language = corpusLanguage(row);
    const own = chars.get(language) ?? 0;
    // Rows that name no language count once.
    return language !== "" && english > 0 && own > 0 && balance > 0 ? Math.max(1, english / own) ** balance : 1;
  });
}

/**
 * How the gibberish model is trained. `anagramMinCount`: the weighted corpus count from which a
 * Latin word's letter multiset goes into the anagram filter (rarer words would fill it with
 * collisions and match foreign words by chance). `writtenWeight`: how many times each sentence of
 * the written romanised corpus counts (its 13 languages then hold about 40% of a corpus language's
 * mass each).
 */
export const GIBBERISH_RECIPE: {
  languageBalance: number;
  romanise: readonly string[];
  anagramMinCount: number;
  writtenWeight: number;
} = {
  languageBalance: 1,
  romanise: ["ru", "el"],
  anagramMinCount: 50,
  writtenWeight: 400,
};

/** Trains the language model on the corpus and the calibration on the labelled rows. */
export function trainGibberish(
  corpus: readonly Row[],
  train: readonly Row[],
  validation: readonly Row[],
  training: Record<string, unknown>,
  recipe = GIBBERISH_RECIPE,
): TrainedGibberish {
  const tables = new GibberishTables();
  const alphabets = new Map<number, Set<number>>();
  const counted = withRomanised(corpus, recipe.romanise);
  const weights = corpusWeights(counted, recipe.languageBalance, recipe.writtenWeight);
  const latin = new Map<string, number>();
  counted.forEach((row, i) => count(tables, row.text, alphabets, latin, weights[i] as number));
  for (const [script, alphabet] of alphabets) tables.alphabet[script] = alphabet.size;
  for (const [word, n] of latin) {
    if (n < recipe.anagramMinCount || word.length < 2) continue;
    let key = 0;
    for (let i = 0; i < word.length; i++) key = (key + letterKey(word.charCodeAt(i))) | 0;
    tables.anagrams[tables.anagramSlot1(key, word.length)] = 1;
    tables.anagrams[tables.anagramSlot2(key, word.length)] = 1;
  }
  // Stored as int8 of ln(1 + count): quantise now so calibration sees the tables as they will load.
  for (const t of [tables.trigram, tables.bigram, tables.unigram, tables.words]) {
    let max = 0;
    for (const v of t) max = Math.max(max, Math.log1p(v));
    const step = max / 127;
    for (let i = 0; i < t.length; i++) t[i] = Math.expm1(Math.round(Math.log1p(t[i] as number) / step) * step);
  }
  const calibrationRows = [...train, ...withStrayTokens(train)];
  const calibration = fitCalibration(
    calibrationRows.map((r) => Float64Array.from(measure(tables, r.text).features)),
    calibrationRows.map((r) => r.label),
  );
  const scores = validation.map((r) => calibrated(calibration, measure(tables, r.text).features));
  let threshold = 0.5;
  let bestF1 = -1;
  for (let t = 5; t <= 95; t++) {
    const m = metrics(
      validation.map((r) => r.label),
      scores.map((s) => s >= t / 100),
    );
    if (m.f1 > bestF1) [bestF1, threshold] = [m.f1, t / 100];
  }
  const tensors = tableTensors(tables).map(({ name, values }) => {
    const logged = LOGGED_TABLES.has(name);
    return {
      name,
      values: logged ? values.map((v) => Math.log1p(v)) : values,
      dtype: logged || name === "pairs" || name === "anagrams" ? ("int8" as const) : ("float32" as const),
    };
  });
  const bytes = encodeWeights(
    {
      model: "gibberish",
      features: [...GIBBERISH_FEATURES],
      calibration,
      threshold,
      training: { trainer: GIBBERISH_TRAINER_VERSION, ...recipe, ...training },
    },
    tensors,
  );
  return { tables, calibration, threshold, bytes };
}
