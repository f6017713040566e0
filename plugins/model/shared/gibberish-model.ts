/**
 * The shipped gibberish detector at run time: a character trigram language model per script
 * (interpolated with bigram and unigram estimates, counts hashed into fixed tables), membership
 * sets of the corpus's words and word pairs, and a logistic calibration over a handful of text
 * features. Han, kana and Hangul have no model and are never called gibberish, nor is any script
 * the corpus did not cover.
 */
import { folded, Kind, Script } from "./fold.js";
import { FNV_OFFSET, FNV_PRIME, mix } from "./hashed-features.js";
import { readWeights, type Weights } from "./weights-file.js";

/** Table sizes (log2) of the trigram, bigram and unigram counts and the word and pair sets. */
export const GIBBERISH_TABLES = { trigram: 18, bigram: 16, unigram: 12, words: 18, pairs: 19, anagrams: 18 } as const;

/** Scripts with a character model. */
export const MODELLED_SCRIPTS: readonly Script[] = [
  Script.Latin,
  Script.Cyrillic,
  Script.Greek,
  Script.Arabic,
  Script.Devanagari,
  Script.Thai,
];

/** Whether a script has a model, by script number. */
const MODELLED = Array.from({ length: 16 }, (_, s) => MODELLED_SCRIPTS.includes(s as Script));

/** Per-character log2 probability under which a word counts as gibberish. */
export const WORD_GIBBERISH_BITS = -4.2;

/** The features the calibration weighs, in order. */
export const GIBBERISH_FEATURES = [
  "meanBits",
  "gibberishShare",
  "unknownWordShare",
  "unseenPairShare",
  "symbolShare",
  "vowellessShare",
  "modelledShare",
  "meanWordFrequency",
  "commonWordShare",
  "mixedScriptShare",
  "leetMixShare",
  "anagramShare",
] as const;

/**
 * Scripts whose letters mixing inside one word betray look-alike substitution or a mash: alphabets
 * written with spaces between words. Han, kana, Hangul, Thai and Devanagari are left out, because
 * text in them runs straight into a Latin brand or term without a space ("今天的meeting").
 */
const SWITCHING = Array.from({ length: 16 }, (_, s) =>
  [Script.Latin, Script.Cyrillic, Script.Greek, Script.Arabic, Script.Other].includes(s as Script),
);

/** Corpus count from which a word counts as common (function words and the like). */
export const COMMON_WORD_COUNT = 300;

const BOUNDARY = 0x20;
const K = 0.5;

const gram = (script: number, a: number, b: number, c: number) =>
  mix(Math.imul(Math.imul(Math.imul(FNV_OFFSET ^ script, FNV_PRIME) ^ a, FNV_PRIME) ^ b, FNV_PRIME) ^ c);

/** Hashed count tables of the language model and the word sets; shared by training and scoring. */
export class GibberishTables {
  readonly trigram = new Float32Array(1 << GIBBERISH_TABLES.trigram);
  /** Counts of bigrams as contexts (first two letters of a trigram) and as bigrams. */
  readonly bigram = new Float32Array(1 << GIBBERISH_TABLES.bigram);
  readonly unigram = new Float32Array(1 << GIBBERISH_TABLES.unigram);
  readonly words = new Float32Array(1 << GIBBERISH_TABLES.words);
  readonly pairs = new Float32Array(1 << GIBBERISH_TABLES.pairs);
  /** A Bloom filter (two slots per key) of the letter multisets of the corpus's frequent Latin words. */
  readonly anagrams = new Float32Array(1 << GIBBERISH_TABLES.anagrams);
  /** Letters counted per script, and distinct letters per script (the vocabulary of the smoothing). */
  readonly totals = new Float32Array(16);
  readonly alphabet = new Float32Array(16);

  triIndex = (s: number, a: number, b: number, c: number) => gram(s, a, b, c) & ((1 << GIBBERISH_TABLES.trigram) - 1);
  biIndex = (s: number, a: number, b: number) => gram(s, 0, a, b) & ((1 << GIBBERISH_TABLES.bigram) - 1);
  uniIndex = (s: number, a: number) => gram(s, 0, 0, a) & ((1 << GIBBERISH_TABLES.unigram) - 1);
  wordIndex = (h: number) => mix(h) & ((1 << GIBBERISH_TABLES.words) - 1);
  pairIndex = (h1: number, h2: number) => mix(Math.imul(h1, 31) ^ h2 ^ 0x27d4eb2f) & ((1 << GIBBERISH_TABLES.pairs) - 1);

  /** The two Bloom-filter slots of a word's letter multiset (`letterKey` summed over its letters) and length. */
  anagramSlot1 = (key: number, length: number) =>
    mix(key ^ Math.imul(length, 0x27d4eb2f)) & ((1 << GIBBERISH_TABLES.anagrams) - 1);
  anagramSlot2 = (key: number, length: number) =>
    mix(Math.imul(key, 0x165667b1) ^ length ^ 0x5bd1e995) & ((1 << GIBBERISH_TABLES.anagrams) - 1);

  /** Whether a word's letter multiset is that of a frequent corpus word (or collides with one). */
  isAnagram(key: number, length: number): boolean {
    return (
      (this.anagrams[this.anagramSlot1(key, length)] as number) > 0 &&
      (this.anagrams[this.anagramSlot2(key, length)] as number) > 0
    );
  }

  /** Count of the context (a, b) as a bigram, and of b alone: set by `start`, moved on by `bits`. */
  private contextCount = 0;
  private previousCount = 0;

  /** Starts a word of script `s`: the context is two boundaries. */
  start(s: number): void {
    this.contextCount = this.bigram[this.biIndex(s, BOUNDARY, BOUNDARY)] as number;
    this.previousCount = this.unigram[this.uniIndex(s, BOUNDARY)] as number;
  }

  /**
   * log2 P(c | a b) by interpolating trigram, bigram and unigram estimates. Called letter after
   * letter of a word begun with `start`: the counts of (b, c) and of c become the next letter's
   * context counts, so each letter costs three look-ups rather than five.
   */
  bits(s: number, a: number, b: number, c: number): number {
    const v = Math.max(1, this.alphabet[s] as number);
    const abc = this.trigram[this.triIndex(s, a, b, c)] as number;
    const ab = this.contextCount;
    const bc = this.bigram[this.biIndex(s, b, c)] as number;
    const bCount = this.previousCount;
    const cCount = this.unigram[this.uniIndex(s, c)] as number;
    this.contextCount = bc;
    this.previousCount = cCount;
    const p3 = ab > 0 ? abc / ab : 0;
    const p2 = bCount > 0 ? bc / bCount : 0;
    const p1 = (cCount + K) / ((this.totals[s] as number) + K * v);
    return Math.log2(0.6 * p3 + 0.3 * p2 + 0.1 * p1);
  }
}

const UPPER = /\p{Lu}/u;
const upperCache = new Map<number, boolean>();
/** Whether a code point is an upper-case letter (cached past ASCII). */
function isUpper(cp: number): boolean {
  if (cp < 128) return cp >= 65 && cp <= 90;
  let u = upperCache.get(cp);
  if (u === undefined) upperCache.set(cp, (u = UPPER.test(String.fromCodePoint(cp))));
  return u;
}

/** A letter's share of an order-free key of a word's letters: the key is the sum of its letters' shares. */
const mixedLetterKey = (c: number) => mix(Math.imul(c ^ 0x2545f491, 0x9e3779b1));
/** The keys of the Latin letters folded text holds, looked up rather than mixed per letter. */
const LETTER_KEYS = Int32Array.from({ length: 0x250 }, (_, c) => mixedLetterKey(c));
export const letterKey = (c: number) => (c < 0x250 ? (LETTER_KEYS[c] as number) : mixedLetterKey(c) | 0);

/** What the scorer measures of a text, before calibration. */
export interface GibberishMeasure {
  features: Float64Array;
  /** Letters in words of modelled scripts, and those in words judged gibberish. */
  letters: number;
  gibberishLetters: number;
  words: number;
}

/**
 * Walks a text once: each word of a modelled script is scored by its mean log2 probability per
 * letter (boundaries included), looked up in the word set and, when unknown, in the set of
 * frequent words' letter multisets, and paired with the previous word.
 */
export function measure(
  tables: GibberishTables,
  text: string,
  out: Float64Array = new Float64Array(GIBBERISH_FEATURES.length),
): GibberishMeasure {
  let letters = 0;
  let modelledLetters = 0;
  let gibberishLetters = 0;
  let symbols = 0;
  let visible = 0;
  let sumBits = 0;
  let words = 0;
  let latinWords = 0;
  let unknown = 0;
  let vowelless = 0;
  let pairs = 0;
  let unseenPairs = 0;
  let frequency = 0;
  let common = 0;
  let previousWord = 0;
  let hasPrevious = false;
  let anagrams = 0;
  let otherWords = 0;
  // Statistics of the name-like words (capitalised, not opening a sentence), taken out at the end
  // when such words are a minority of the Latin ones.
  let names = 0;
  let nameLetters = 0;
  let nameBits = 0;
  let nameGibberishLetters = 0;
  let nameUnknown = 0;
  let nameVowelless = 0;
  let nameFrequency = 0;
  let nameCommon = 0;
  let nameAnagrams = 0;
  let namePairs = 0;
  let nameUnseenPairs = 0;
  let previousName = false;
  let sentenceStart = true;
  let firstUpper = false;
  let upperLetters = 0;
  // A token is a run of letters whatever their script; a word above ends where the script changes.
  let tokens = 0;
  let mixedTokens = 0;
  let tokenScript: number = Script.None;
  let switches = 0;
  let firstRun = 0;
  let run = 0;
  // An alphanumeric token is a run of letters, digits, `@` and `$`; leet alternates the two kinds.
  let alnumTokens = 0;
  let leetTokens = 0;
  let alnumLength = 0;
  let alternations = 0;
  let lastDigit = false;

  let script: number = Script.None;
  let a = BOUNDARY;
  let b = BOUNDARY;
  let wordBits = 0;
  let wordLength = 0;
  let wordHash = FNV_OFFSET;
  let wordKey = 0;
  let vowels = 0;
  const endWord = () => {
    if (wordLength === 0) return;
    const modelled = MODELLED[script] === true;
    if (modelled) {
      wordBits += tables.bits(script, a, b, BOUNDARY);
      const perLetter = wordBits / (wordLength + 1);
      sumBits += wordBits;
      modelledLetters += wordLength;
      words++;
      const gibberishWord = perLetter < WORD_GIBBERISH_BITS;
      if (gibberishWord) gibberishLetters += wordLength;
      // Word statistics only for Latin script: the corpus is too small in the others to know their words.
      if (script === Script.Latin) {
        latinWords++;
        // A capitalised word with a vowel that does not open a sentence reads as a name ("Tbilisi").
        const name = !sentenceStart && wordLength > 2 && vowels > 0 && firstUpper && upperLetters === 1;
        const seen = tables.words[tables.wordIndex(wordHash)] as number;
        const anagram = seen === 0 && wordLength > 1 && tables.isAnagram(wordKey, wordLength);
        if (seen === 0) unknown++;
        if (anagram) anagrams++;
        frequency += Math.log1p(seen);
        if (seen >= COMMON_WORD_COUNT) common++;
        const noVowel = vowels === 0 && wordLength > 1;
        if (noVowel) vowelless++;
        let unseenPair = false;
        if (hasPrevious) {
          pairs++;
          unseenPair = (tables.pairs[tables.pairIndex(previousWord, wordHash)] as number) === 0;
          if (unseenPair) unseenPairs++;
        }
        if (name) {
          names++;
          nameLetters += wordLength;
          nameBits += wordBits;
          if (gibberishWord) nameGibberishLetters += wordLength;
          if (seen === 0) nameUnknown++;
          if (anagram) nameAnagrams++;
          nameFrequency += Math.log1p(seen);
          if (seen >= COMMON_WORD_COUNT) nameCommon++;
          if (noVowel) nameVowelless++;
        }
        if (hasPrevious && (name || previousName)) {
          namePairs++;
          if (unseenPair) nameUnseenPairs++;
        }
        previousName = name;
      } else previousName = false;
      previousWord = wordHash;
      hasPrevious = true;
    } else {
      hasPrevious = false;
      otherWords++;
    }
    sentenceStart = false;
    wordLength = 0;
    wordBits = 0;
    wordHash = FNV_OFFSET;
    wordKey = 0;
    vowels = 0;
    upperLetters = 0;
    firstUpper = false;
    a = b = BOUNDARY;
    script = Script.None;
  };
  /**
   * Ends a token: it mixes scripts when the script changes twice or more inside it, or once after
   * two or more letters. One letter before a change is a symbol's prefix (ΔT, μm, kΩ), not a
   * substitution.
   */
  const endToken = () => {
    if (run === 0) return;
    tokens++;
    if (switches >= 2 || (switches === 1 && firstRun >= 2)) mixedTokens++;
    tokenScript = Script.None;
    switches = 0;
    firstRun = 0;
    run = 0;
  };
  /** Ends an alphanumeric token: leet mash when letters and digits alternate three times, or twice in five characters. */
  const endAlnum = () => {
    if (alnumLength === 0) return;
    alnumTokens++;
    if (alternations >= 3 || (alternations >= 2 && alnumLength >= 5)) leetTokens++;
    alnumLength = 0;
    alternations = 0;
  };
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i) as number;
    i += cp > 0xffff ? 2 : 1;
    const f = folded(cp);
    if (f.kind === Kind.Ignored) continue;
    const digitLike = f.kind === Kind.Digit || f.kind === Kind.LeetSymbol;
    if (digitLike || f.kind === Kind.Latin || f.kind === Kind.Foreign) {
      if (alnumLength > 0 && digitLike !== lastDigit) alternations++;
      lastDigit = digitLike;
      alnumLength++;
    } else endAlnum();
    if (f.kind === Kind.Latin || f.kind === Kind.Foreign) {
      if (SWITCHING[f.script] === true) {
        if (tokenScript !== Script.None && f.script !== tokenScript) {
          if (switches === 0) firstRun = run;
          switches++;
        }
        tokenScript = f.script;
      }
      run++;
      visible++;
      letters++;
      if (wordLength > 0 && f.script !== script) endWord();
      if (wordLength === 0 && MODELLED[f.script] === true) tables.start(f.script);
      script = f.script;
      const c = f.text.charCodeAt(0) || cp;
      if (MODELLED[script] === true) wordBits += tables.bits(script, a, b, c);
      if (c === 0x61 || c === 0x65 || c === 0x69 || c === 0x6f || c === 0x75 || c === 0x79) vowels++;
      if (isUpper(cp)) {
        if (wordLength === 0) firstUpper = true;
        upperLetters++;
      }
      wordHash = Math.imul(wordHash ^ c, FNV_PRIME);
      wordKey = (wordKey + letterKey(c)) | 0;
      a = b;
      b = c;
      wordLength++;
      continue;
    }
    endWord();
    endToken();
    if (cp === 0x2e || cp === 0x21 || cp === 0x3f || cp === 0x3a || cp === 0x0a || cp === 0x22) sentenceStart = true;
    if (f.kind === Kind.Space) continue;
    visible++;
    if (f.kind === Kind.Other || f.kind === Kind.LeetSymbol) symbols++;
    // Punctuation ends a word pair as well as a word.
    if (f.kind === Kind.Other) hasPrevious = false;
  }
  endWord();
  endToken();
  endAlnum();
  // Latin words a minority among words of other scripts, modelled or not, are names and borrowed
  // terms ("Google Docs" in a Russian or Hebrew sentence): their statistics would judge the text
  // by what it is not.
  const latinText = latinWords > 0 && latinWords * 2 >= words + otherWords;
  // Names are taken out of the word statistics (a foreign name is an unknown word without being
  // gibberish) while another Latin word remains, and out of the letter statistics too when they
  // are a minority of the Latin words: a text of capitalised words (a title-case mash) is still
  // judged by its letters.
  if (names > 0 && names * 2 < latinWords) {
    modelledLetters -= nameLetters;
    sumBits -= nameBits;
    gibberishLetters -= nameGibberishLetters;
    words -= names;
  }
  if (names > 0 && names < latinWords) {
    latinWords -= names;
    unknown -= nameUnknown;
    anagrams -= nameAnagrams;
    vowelless -= nameVowelless;
    frequency -= nameFrequency;
    common -= nameCommon;
    pairs -= namePairs;
    unseenPairs -= nameUnseenPairs;
  }
  out[0] = modelledLetters > 0 ? sumBits / (modelledLetters + words) : 0;
  out[1] = modelledLetters > 0 ? gibberishLetters / modelledLetters : 0;
  // NaN: not measured (no Latin words, no pairs); the calibration then leaves the feature out.
  out[2] = latinText ? unknown / latinWords : Number.NaN;
  out[3] = latinText && pairs > 0 ? unseenPairs / pairs : Number.NaN;
  out[4] = visible > 0 ? symbols / visible : 0;
  out[5] = latinText ? vowelless / latinWords : Number.NaN;
  out[6] = letters > 0 ? modelledLetters / letters : 0;
  out[7] = latinText ? frequency / latinWords : Number.NaN;
  out[8] = latinText ? common / latinWords : Number.NaN;
  out[9] = tokens > 0 ? mixedTokens / tokens : 0;
  out[10] = alnumTokens > 0 ? leetTokens / alnumTokens : 0;
  // Unknown words with the letters of a frequent word: words with their letters shuffled.
  out[11] = latinText ? anagrams / latinWords : Number.NaN;
  return { features: out, letters: modelledLetters, gibberishLetters, words };
}

/** Logistic calibration over the features: a weight per feature and a bias. */
export interface Calibration {
  weights: number[];
  bias: number;
  /** Feature means and spreads the weights were fitted on (inputs are standardised). */
  mean: number[];
  scale: number[];
}

/** The calibrated probability that a measured text is gibberish; features not measured (NaN) count for nothing. */
export function calibrated(calibration: Calibration, features: ArrayLike<number>): number {
  let z = calibration.bias;
  for (let i = 0; i < calibration.weights.length; i++) {
    if (Number.isNaN(features[i])) continue;
    z +=
      (calibration.weights[i] as number) *
      (((features[i] as number) - (calibration.mean[i] as number)) / (calibration.scale[i] as number));
  }
  return 1 / (1 + Math.exp(-z));
}

/** A loaded gibberish model. */
export interface GibberishModel {
  tables: GibberishTables;
  calibration: Calibration;
  threshold: number;
  header: Weights["header"];
}

/** The tensors of the tables, by name, for the weights file. */
export function tableTensors(tables: GibberishTables): Array<{ name: string; values: Float32Array }> {
  return [
    { name: "trigram", values: tables.trigram },
    { name: "bigram", values: tables.bigram },
    { name: "unigram", values: tables.unigram },
    { name: "words", values: tables.words },
    { name: "pairs", values: tables.pairs },
    { name: "anagrams", values: tables.anagrams },
    { name: "totals", values: tables.totals },
    { name: "alphabet", values: tables.alphabet },
  ];
}

/** Tables stored as int8 of ln(1 + count); the others hold 0/1 or small floats. */
export const LOGGED_TABLES: ReadonlySet<string> = new Set(["trigram", "bigram", "unigram", "words"]);

/** The file the package ships. */
export const GIBBERISH_WEIGHTS = new URL("../weights/gibberish.ggmw", import.meta.url);

/** Builds the model a weights file describes. */
export function gibberishModelFrom(weights: Weights): GibberishModel {
  const tables = new GibberishTables();
  for (const { name, values } of tableTensors(tables)) {
    const stored = weights.tensor(name);
    const logged = LOGGED_TABLES.has(name);
    for (let i = 0; i < values.length; i++) values[i] = logged ? Math.expm1(stored[i] as number) : (stored[i] as number);
  }
  return {
    tables,
    calibration: weights.header.calibration as Calibration,
    threshold: weights.header.threshold as number,
    header: weights.header,
  };
}

let shipped: GibberishModel | undefined;

/** The shipped gibberish model, loaded on first use. */
export function gibberishModel(): GibberishModel {
  shipped ??= gibberishModelFrom(readWeights(GIBBERISH_WEIGHTS));
  return shipped;
}
