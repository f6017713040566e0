/**
 * Counting tokens with the real BPE tokenizers of gpt-tokenizer (o200k_base, cl100k_base), at a
 * cost linear in the text. The `default.tokenCount` check and the gateway's usage estimates both
 * count here, so a check's count and a logged estimate agree.
 *
 * The library's byte-pair merge costs the square of a pre-token's length (100 KB of one letter took
 * 7 s here, 1 MB would take minutes), and its merge cache, once full, scans past deleted entries on
 * every eviction (1 MB of mixed scripts took 13 s after the cache had filled). So:
 * - the text is cut into pre-tokens with the encoding's own split pattern, and each pre-token is
 *   counted on its own, which leaves the count exact (a pre-token is what the tokenizer merges);
 * - a pre-token longer than 32 characters (a run of letters with no space, a CJK sentence, a long
 *   run of punctuation) is counted in 32-character pieces: the count may then differ from the
 *   unchunked one by about a token per piece, and the result says it is approximate;
 * - the split pattern runs over 8 KB windows, so no single match of a megabyte-long run holds the
 *   thread, and a count asked to share the thread looks at the clock every 16 pieces;
 * - counts of pre-tokens are kept in a bounded LRU cache per encoding (text repeats its words), and
 *   the library's own merge cache is switched off.
 * Measured on 1 MB (o200k_base): English prose 0.06 s, mixed scripts 0.06 s, random short words
 * 0.03 s, one long word 0.02 s, random letters with no space 0.15 s, random CJK with no punctuation
 * 0.3 s; counts exact on ordinary text, within 1% of the unchunked count on random letters.
 */
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";
import { LRUCache } from "lru-cache";
import { ThreadShare } from "./thread-share.js";

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

/**
 * Loads an encoding ahead of its first count: compiling its rank table holds the thread for about
 * 150 ms, which a server pays before it takes requests rather than in the middle of one.
 */
export async function loadEncoding(encoding: Encoding): Promise<void> {
  await counter(encoding);
}

/** The outcome of a count. */
export interface TokenCount {
  count: number;
  /** False when a pre-token longer than 32 characters was counted in pieces. */
  exact: boolean;
  /** How often the count gave the event loop a turn (with `yieldEveryMs`; 0 without). */
  turns: number;
}

/** How a count shares its thread. */
export interface CountOptions {
  /**
   * Yield to the event loop after this many milliseconds of counting: for counts on a server's
   * main thread, where a megabyte would otherwise hold every other request for its whole count.
   */
  yieldEveryMs?: number;
}

/**
 * Characters the split pattern runs over at once. One run of the pattern over a megabyte of one
 * letter is a single match that holds the thread for milliseconds; over a window it is bounded.
 */
const WINDOW = 8_192;
/**
 * A match that ends this close to a window's end may have been cut or changed by the end (the
 * patterns look one character ahead and fall back between alternatives), so the next window starts
 * at it and matches it again with the text that follows.
 */
const MARGIN = 256;
/** Pieces counted between looks at the clock. */
const CLOCK_EVERY = 16;

/** Counts the tokens of a text in an encoding. */
export async function countTokens(text: string, encoding: Encoding, options: CountOptions = {}): Promise<TokenCount> {
  const { count } = await counter(encoding);
  const share = options.yieldEveryMs === undefined ? undefined : new ThreadShare(options.yieldEveryMs, CLOCK_EVERY);
  let total = 0;
  let exact = true;
  let at = 0;
  while (at < text.length) {
    const end = Math.min(at + WINDOW, text.length);
    const window = text.slice(at, end);
    const last = end === text.length;
    let next = end;
    let covered = 0;
    for (const match of window.matchAll(new RegExp(SPLIT[encoding]))) {
      const turn = share?.due();
      if (turn) await turn;
      let piece = match[0];
      // The split pattern covers every character; should a character ever fall between matches,
      // it is counted rather than lost.
      if (match.index > covered) total += count(window.slice(covered, match.index));
      covered = match.index + piece.length;
      if (!last && covered > window.length - MARGIN) {
        if (match.index > 0) {
          next = at + match.index;
          break;
        }
        // A run that fills the window: its whole pieces are counted here, the rest with what follows.
        let whole = piece.length - (piece.length % MAX_PIECE);
        const code = piece.charCodeAt(whole - 1);
        if (code >= 0xd800 && code <= 0xdbff) whole--;
        piece = piece.slice(0, whole);
        covered = whole;
        next = at + whole;
      }
      if (piece.length <= MAX_PIECE) {
        total += count(piece);
        if (next !== end) break;
        continue;
      }
      exact = false;
      for (let from = 0; from < piece.length;) {
        const turn = share?.due();
        if (turn) await turn;
        let cut = Math.min(from + MAX_PIECE, piece.length);
        const code = piece.charCodeAt(cut - 1);
        // Never between the halves of a surrogate pair.
        if (cut < piece.length && code >= 0xd800 && code <= 0xdbff) cut--;
        total += count(piece.slice(from, cut));
        from = cut;
      }
      if (next !== end) break;
    }
    if (next === end && covered < window.length) total += count(window.slice(covered));
    at = next;
  }
  return { count: total, exact, turns: share?.turns ?? 0 };
}
