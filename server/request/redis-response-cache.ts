/**
 * The `cache.mode: "simple"` response cache in Redis, shared by every gateway instance: an answer
 * cached through one instance is a hit on all. Each answer expires after its max age; the total
 * size is capped, the oldest answers evicted first, in the same atomic script that stores one.
 * While Redis cannot be reached the cache is bypassed: every lookup misses (and the upstream is
 * asked), and nothing is stored; it never holds a request up longer than the client's command
 * time-out (redis-connection.ts).
 */
import type { Redis } from "ioredis";
import { type AnswerCache, answerCacheKey, type CachedAnswer } from "./response-cache.js";

/** Options of the Redis response cache. */
export interface RedisResponseCacheOptions {
  client: Redis;
  /** Total bytes of cached answers across the fleet; default 64 MiB. */
  maxBytes?: number;
  /** `max_age` when a config gives none, in seconds; default 1 hour. */
  defaultMaxAgeSeconds?: number;
  /** Prefix of every key. Default `guardgate:cache:`. */
  prefix?: string;
}

// KEYS: answer, age index (sorted set), sizes (hash), total; ARGV: value, ttl ms, size, max bytes,
// now, member, answer key prefix. Evicted answers are deleted by name (a single Redis, not a cluster).
const SET_SCRIPT = `
local member = ARGV[6]
local size = tonumber(ARGV[3])
local maxBytes = tonumber(ARGV[4])
local previous = redis.call('HGET', KEYS[3], member)
if previous then redis.call('DECRBY', KEYS[4], previous) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[5], member)
redis.call('HSET', KEYS[3], member, size)
local total = redis.call('INCRBY', KEYS[4], size)
while total > maxBytes do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  local held = tonumber(redis.call('HGET', KEYS[3], oldest) or '0')
  redis.call('ZREM', KEYS[2], oldest)
  redis.call('HDEL', KEYS[3], oldest)
  redis.call('DEL', ARGV[7] .. oldest)
  total = redis.call('DECRBY', KEYS[4], held)
end
return total
`;

/** A response cache in Redis. */
export class RedisResponseCache implements AnswerCache {
  readonly #client: Redis;
  readonly #maxBytes: number;
  readonly #defaultMaxAge: number;
  readonly #prefix: string;

  constructor(options: RedisResponseCacheOptions) {
    this.#client = options.client;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#defaultMaxAge = options.defaultMaxAgeSeconds ?? 3600;
    this.#prefix = options.prefix ?? "guardgate:cache:";
    this.#client.defineCommand("guardgateCacheSet", { numberOfKeys: 4, lua: SET_SCRIPT });
  }

  key(parts: { workspaceId: string; provider: string; path: string; body: string }): string {
    return answerCacheKey(parts);
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      const text = await this.#client.get(`${this.#prefix}answer:${key}`);
      return text === null ? undefined : (JSON.parse(text) as CachedAnswer);
    } catch {
      // Unreachable (or a value not ours): a miss, and the upstream answers.
      return undefined;
    }
  }

  set(key: string, answer: CachedAnswer, maxAgeSeconds?: number): void {
    const value = JSON.stringify(answer);
    const size = Buffer.byteLength(value);
    // An answer larger than an eighth of the cache would evict too much to be worth keeping.
    if (size > this.#maxBytes / 8) return;
    const ttlMs = Math.max(1, Math.round((maxAgeSeconds ?? this.#defaultMaxAge) * 1000));
    const client = this.#client as unknown as { guardgateCacheSet(...args: Array<string | number>): Promise<number> };
    const answers = `${this.#prefix}answer:`;
    client
      .guardgateCacheSet(
        `${answers}${key}`,
        `${this.#prefix}ages`,
        `${this.#prefix}sizes`,
        `${this.#prefix}total`,
        value,
        ttlMs,
        size,
        this.#maxBytes,
        Date.now(),
        key,
        answers,
      )
      // Not stored while Redis is down: the next request asks the upstream again.
      .catch(() => {});
  }

  /** Bytes of answers held, as the cap counts them. */
  async totalBytes(): Promise<number> {
    return Number((await this.#client.get(`${this.#prefix}total`)) ?? 0);
  }
}
