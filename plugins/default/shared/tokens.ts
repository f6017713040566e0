/**
 * Counting tokens with the real BPE tokenizers of gpt-tokenizer (o200k_base, cl100k_base), at a
 * cost linear in the text.
 *
 * The library's byte-pair merge costs the square of a pre-token's length (100 KB of one letter took
 * 7 s here, 1 MB would take minutes), and its merge cache, once full, scans past deleted entries on
 * every eviction (1 MB of mixed scripts took 13 s after the cache had filled). So:
 * - the text is cut into pre-tokens with the encoding's own split pattern, and each pre-token is
 *   counted on its own, which leaves the count exact (a pre-token is what the tokenizer merges);
 * - a pre-token longer than 32 characters (a run of letters with no space, a CJK sentence, a long
 *   run of punctuation) is counted in 32-character pieces: the count may then differ from the
 *   unchunked one by about a token per piece, and the result says it is approximate;
 * - counts of pre-tokens are kept in a bounded LRU cache per encoding (text repeats its words), and
 *   the library's own merge cache is switched off.
 * Measured on 1 MB (o200k_base): English prose 0.06 s, mixed scripts 0.06 s, random short words
 * 0.03 s, one long word 0.02 s, random letters with no space 0.15 s, random CJK with no punctuation
 * 0.3 s; counts exact on ordinary text, within 1% of the unchunked count on random letters.
 */
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { LRUCache } from "lru-cache";

/** The encodings offered. */
export type Encoding = "o200k_base" | "cl100k_base";

export const ENCODINGS: readonly Encoding[] = ["o200k_base", "cl100k_base"];

interface Tokenizer {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  setMergeCacheSize(size: number): void;
}

/** A loaded encoding: its counter and its cache of pre-token counts. */
interface Counter {
  count(piece: string): number;
}

const SPLIT: Record<Encoding, RegExp> = { o200k_base: O200K_TOKEN_SPLIT_REGEX, cl100k_base: CL100K_TOKEN_SPLIT_REGEX };

/** Longest pre-token merged whole. */
const MAX_PIECE = 32;
const CACHE_SIZE = 20_000;
// Special-token strings ("<|endoftext|>") in user text are text, never control tokens or errors.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

const loading = new Map<Encoding, Promise<Counter>>();

/** Loads an encoding's rank table once (several MB; only the encodings in use are loaded). */
function counter(encoding: Encoding): Promise<Counter> {
  let loaded = loading.get(encoding);
  if (!loaded) {
    const module: Promise<Tokenizer> =
      encoding === "o200k_base" ? import("gpt-tokenizer/encoding/o200k_base") : import("gpt-tokenizer/encoding/cl100k_base");
    loaded = module.then((tokenizer) => {
      tokenizer.setMergeCacheSize(0);
      const cache = new LRUCache<string, number>({ max: CACHE_SIZE });
      return {
        count(piece: string): number {
          let n = cache.get(piece);
          if (n === undefined) {
            n = tokenizer.countTokens(piece, AS_TEXT);
            cache.set(piece, n);
          }
          return n;
        },
      };
    });
    loading.set(encoding, loaded);
  }
  return loaded;
}

/** The outcome of a count. */
export interface TokenCount {
  count: number;
  /** False when a pre-token longer than 32 characters was counted in pieces. */
  exact: boolean;
}

/** How a count shares its thread. */
export interface CountOptions {
  /**
   * Yield to the event loop after this many milliseconds of counting: for counts on a server's
   * main thread, where a megabyte would otherwise hold every other request for its whole count.
   */
  yieldEveryMs?: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts the tokens of a text in an encoding. */
export async function countTokens(text: string, encoding: Encoding, options: CountOptions = {}): Promise<TokenCount> {
  const { count } = await counter(encoding);
  const slice = options.yieldEveryMs;
  let since = slice === undefined ? 0 : performance.now();
  let total = 0;
  let exact = true;
  let covered = 0;
  let pieces = 0;
  for (const match of text.matchAll(new RegExp(SPLIT[encoding]))) {
    if (slice !== undefined && ++pieces % 256 === 0 && performance.now() - since > slice) {
      await nextTurn();
      since = performance.now();
    }
    const piece = match[0];
    // The split pattern covers every character; should a character ever fall between matches,
    // it is counted rather than lost.
    if (match.index > covered) total += count(text.slice(covered, match.index));
    covered = match.index + piece.length;
    if (piece.length <= MAX_PIECE) {
      total += count(piece);
      continue;
    }
    exact = false;
    for (let at = 0; at < piece.length;) {
      if (slice !== undefined && ++pieces % 256 === 0 && performance.now() - since > slice) {
        await nextTurn();
        since = performance.now();
      }
      let cut = Math.min(at + MAX_PIECE, piece.length);
      const code = piece.charCodeAt(cut - 1);
      // Never between the halves of a surrogate pair.
      if (cut < piece.length && code >= 0xd800 && code <= 0xdbff) cut--;
      total += count(piece.slice(at, cut));
      at = cut;
    }
  }
  if (covered < text.length) total += count(text.slice(covered));
  return { count: total, exact };
}
