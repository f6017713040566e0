/**
 * The `cache.mode: "simple"` response cache: exact match on workspace, provider (with a
 * fingerprint of the credential, so one caller's answer never serves another credential), path
 * and the body sent upstream. Only non-streamed 2xx answers are kept, as received from the
 * upstream: guardrails run again on every hit. Memory is bounded by bytes.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";

/** An upstream answer as cached. */
export interface CachedAnswer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** Where answers are cached: this process's memory, or a store shared by a fleet (Redis). */
export interface AnswerCache {
  /** The cache key of a request. */
  key(parts: { workspaceId: string; provider: string; path: string; body: string }): string;
  /** The cached answer; undefined on a miss (or when a shared cache cannot be reached). */
  get(key: string): CachedAnswer | undefined | Promise<CachedAnswer | undefined>;
  /** Keeps an answer for `maxAgeSeconds` (the cache's default when absent); never throws. */
  set(key: string, answer: CachedAnswer, maxAgeSeconds?: number): void;
}

/** The cache key of a request: exact match on workspace, provider, path and body. */
export function answerCacheKey(parts: { workspaceId: string; provider: string; path: string; body: string }): string {
  return createHash("sha256")
    .update(parts.workspaceId)
    .update("\0")
    .update(parts.provider)
    .update("\0")
    .update(parts.path)
    .update("\0")
    .update(parts.body)
    .digest("hex");
}

/** Options of the response cache. */
export interface ResponseCacheOptions {
  /** Total bytes of cached bodies; default 64 MiB. */
  maxBytes?: number;
  /** `max_age` when a config gives none, in seconds; default 1 hour. */
  defaultMaxAgeSeconds?: number;
}

/** A bounded exact-match cache. */
export class ResponseCache implements AnswerCache {
  readonly #cache: LRUCache<string, CachedAnswer>;
  readonly #defaultMaxAge: number;

  constructor(options: ResponseCacheOptions = {}) {
    const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#cache = new LRUCache<string, CachedAnswer>({
      maxSize: maxBytes,
      sizeCalculation: (answer) => Math.max(1, answer.text.length * 2),
      // An answer larger than an eighth of the cache would evict too much to be worth keeping.
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
    });
    this.#defaultMaxAge = options.defaultMaxAgeSeconds ?? 3600;
  }

  key(parts: { workspaceId: string; provider: string; path: string; body: string }): string {
    return answerCacheKey(parts);
  }

  get(key: string): CachedAnswer | undefined {
    return this.#cache.get(key);
  }

  set(key: string, answer: CachedAnswer, maxAgeSeconds?: number): void {
    this.#cache.set(key, answer, { ttl: (maxAgeSeconds ?? this.#defaultMaxAge) * 1000 });
  }

  get size(): number {
    return this.#cache.size;
  }
}
