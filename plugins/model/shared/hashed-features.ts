/**
 * Hashed n-gram features of folded text: character 1- to 5-grams and word 1- and 2-grams, hashed
 * into a fixed number of buckets (the hashing trick), weighted 1 + ln(count) and scaled to unit
 * length. Hashes are computed from code units as the text is walked, never from built strings; the
 * vector lives in buffers reused from call to call.
 */
import type { FoldBuffer } from "./fold.js";

/** What the features of a model are: recorded in its weights file, checked when it loads. */
export interface FeatureSpec {
  /** log2 of the number of buckets. */
  bits: number;
  /** Longest character n-gram. */
  maxCharGram: number;
  /** Word bigrams as well as single words. */
  wordBigrams: boolean;
}

const SPACE = 0x20;
/** FNV-1a's offset basis and prime: hashes here are FNV-1a over UTF-16 code units. */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** Murmur3's finaliser: spreads the bits of a hash before it is cut to a bucket. */
export function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Whether a code unit belongs to a word: anything but white space and ASCII punctuation. */
export function isWordUnit(u: number): boolean {
  return u > 0x7f || (u >= 0x30 && u <= 0x39) || (u >= 0x61 && u <= 0x7a) || (u >= 0x41 && u <= 0x5a);
}

const WORD_SALT = 0x5bd1e995;
const BIGRAM_SALT = 0x27d4eb2f;

/** 1 + ln(count) for small counts, looked up instead of computed. */
const SUBLINEAR = Float32Array.from({ length: 64 }, (_, n) => (n === 0 ? 0 : 1 + Math.log(n)));

/** A sparse feature vector in reused buffers: `size` entries of bucket index and value. */
export class FeatureVector {
  /** Counts per bucket: 16 bits, as a window never holds 65,536 n-grams, and half the memory of floats keeps more of it in cache. */
  readonly counts: Uint16Array;
  indices = new Int32Array(1024);
  values = new Float32Array(1024);
  size = 0;
  readonly mask: number;

  constructor(readonly spec: FeatureSpec) {
    this.counts = new Uint16Array(1 << spec.bits);
    this.mask = (1 << spec.bits) - 1;
  }

  add(bucket: number): void {
    if (this.counts[bucket] === 0) {
      if (this.size === this.indices.length) {
        const indices = new Int32Array(this.size * 2);
        indices.set(this.indices);
        this.indices = indices;
        this.values = new Float32Array(this.size * 2);
      }
      this.indices[this.size++] = bucket;
    }
    (this.counts[bucket] as number)++;
  }

  /** Turns counts into unit-length values and clears the counts for the next text. */
  finish(): void {
    let norm = 0;
    for (let k = 0; k < this.size; k++) {
      const bucket = this.indices[k] as number;
      const count = this.counts[bucket] as number;
      const value = count < SUBLINEAR.length ? (SUBLINEAR[count] as number) : 1 + Math.log(count);
      this.counts[bucket] = 0;
      this.values[k] = value;
      norm += value * value;
    }
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let k = 0; k < this.size; k++) this.values[k] = (this.values[k] as number) * scale;
  }
}

/** Fills `vector` with the features of the folded units from `start` to `end`. */
export function extractFeatures(text: FoldBuffer, start: number, end: number, vector: FeatureVector): void {
  walkFeatures(text, start, end, vector, undefined);
}

/** Like extractFeatures, and tells `visit` every n-gram's bucket with its span (for explanations). */
export function visitFeatures(
  text: FoldBuffer,
  start: number,
  end: number,
  vector: FeatureVector,
  visit: (bucket: number, from: number, to: number) => void,
): void {
  walkFeatures(text, start, end, vector, visit);
}

function walkFeatures(
  text: FoldBuffer,
  start: number,
  end: number,
  vector: FeatureVector,
  visit: ((bucket: number, from: number, to: number) => void) | undefined,
): void {
  vector.size = 0;
  const u = text.units;
  const { maxCharGram, wordBigrams } = vector.spec;
  const mask = vector.mask;
  // Character n-grams over the window with a virtual space at each end.
  for (let i = start - 1; i < end; i++) {
    let h = FNV_OFFSET;
    const last = Math.min(end, i + maxCharGram - 1);
    for (let j = i; j <= last; j++) {
      const unit = j < start || j === end ? SPACE : (u[j] as number);
      h = Math.imul(h ^ unit, FNV_PRIME);
      const n = j - i + 1;
      if (n === 1 && unit === SPACE) continue;
      const bucket = mix(h + n) & mask;
      vector.add(bucket);
      if (visit !== undefined) visit(bucket, Math.max(i, start), Math.min(j + 1, end));
    }
  }
  // Words and word pairs.
  let previous = 0;
  let previousStart = -1;
  for (let i = start; i < end;) {
    if (!isWordUnit(u[i] as number)) {
      i++;
      continue;
    }
    const wordStart = i;
    let h = FNV_OFFSET;
    while (i < end && isWordUnit(u[i] as number)) h = Math.imul(h ^ (u[i++] as number), FNV_PRIME);
    const bucket = mix(h ^ WORD_SALT) & mask;
    vector.add(bucket);
    if (visit !== undefined) visit(bucket, wordStart, i);
    if (wordBigrams && previousStart >= 0) {
      const pair = mix(Math.imul(previous, 31) ^ h ^ BIGRAM_SALT) & mask;
      vector.add(pair);
      if (visit !== undefined) visit(pair, previousStart, i);
    }
    previous = h;
    previousStart = wordStart;
  }
  vector.finish();
}
