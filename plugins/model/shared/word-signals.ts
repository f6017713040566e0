/**
 * Explanations of a hashed n-gram model's score in words: every n-gram's share of the logit is
 * spread over the words it overlaps, and the words that gathered most are reported. An operator
 * reads "ignore", "instructions", "password" where the raw features would say "te" and "ns".
 * Words are cut by the runtime's word segmenter (Intl.Segmenter), which splits Chinese, Japanese
 * and Thai, written without spaces, into dictionary words.
 */
import type { FoldBuffer } from "./fold.js";
import { type FeatureVector, visitFeatures } from "./hashed-features.js";

/** A word that pushed the score up, with its share of the logit. */
export interface WordSignal {
  text: string;
  weight: number;
}

/** What explaining needs of a model: each feature's share of the logit for a vector. */
export interface Explainable {
  contributions(vector: FeatureVector, out: Map<number, number>): void;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/** The words of the folded units from `start` to `end`, as folded offsets. */
function wordsOf(buffer: FoldBuffer, start: number, end: number): Array<{ from: number; to: number }> {
  const words: Array<{ from: number; to: number }> = [];
  for (const piece of segmenter.segment(buffer.slice(start, end))) {
    if (piece.isWordLike === true) words.push({ from: start + piece.index, to: start + piece.index + piece.segment.length });
  }
  return words;
}

/**
 * The `count` words of a folded span that pushed its score up most, strongest first (the same
 * word is reported once, with its weight summed over its occurrences).
 */
export function wordSignals(
  buffer: FoldBuffer,
  start: number,
  end: number,
  vector: FeatureVector,
  model: Explainable,
  count: number,
): WordSignal[] {
  if (count === 0 || end <= start) return [];
  const words = wordsOf(buffer, start, end);
  if (words.length === 0) return [];
  const occurrences: Array<{ bucket: number; from: number; to: number }> = [];
  const times = new Map<number, number>();
  visitFeatures(buffer, start, end, vector, (bucket, from, to) => {
    occurrences.push({ bucket, from, to });
    times.set(bucket, (times.get(bucket) ?? 0) + 1);
  });
  const contributions = new Map<number, number>();
  model.contributions(vector, contributions);
  const gathered = new Float64Array(words.length);
  let first = 0;
  // Character n-grams come in order of their start, then words and word pairs in order: a
  // cursor over the words finds the first one an n-gram may overlap.
  let lastFrom = -1;
  for (const { bucket, from, to } of occurrences) {
    const share = (contributions.get(bucket) ?? 0) / (times.get(bucket) as number);
    if (share === 0) continue;
    if (from < lastFrom) first = 0;
    lastFrom = from;
    while (first < words.length && (words[first] as { to: number }).to <= from) first++;
    for (let w = first; w < words.length; w++) {
      const word = words[w] as { from: number; to: number };
      if (word.from >= to) break;
      const overlap = Math.min(to, word.to) - Math.max(from, word.from);
      if (overlap > 0) gathered[w] = (gathered[w] as number) + (share * overlap) / (to - from);
    }
  }
  const byText = new Map<string, number>();
  words.forEach((word, w) => {
    const text = buffer.slice(word.from, word.to);
    byText.set(text, (byText.get(text) ?? 0) + (gathered[w] as number));
  });
  return [...byText.entries()]
    .filter(([, weight]) => weight > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([text, weight]) => ({ text, weight: Number(weight.toFixed(4)) }));
}
