/**
 * Limit counters in Redis, shared by every gateway instance: each step is one Lua script, which
 * Redis runs atomically, so two instances never both take the last request of a window. The
 * windows are the same sliding-window counters as in memory (counters.ts); totals (budget spend)
 * are plain numbers.
 *
 * When Redis cannot be reached, `onError` decides: `open` admits the request uncounted (budgets
 * fall back to the spend in the request log), `closed` refuses it with 503. Counting after the
 * answer (tokens, spend) is skipped while Redis is down: the request log still holds the spend.
 */
import type { Redis } from "ioredis";
import { type Counters, retryAfterMs, type TakeResult } from "./counters.js";
import { LimitError } from "./enforcer.js";

/** What a limit does while Redis is down. */
export type RedisFailureMode = "open" | "closed";

/** Options of the Redis counters. */
export interface RedisCountersOptions {
  client: Redis;
  /** Default `open`. */
  onError?: RedisFailureMode;
  /** Prefix of every key. Default `guardgate:limits:`. */
  prefix?: string;
  /** Told of each failure, for the operator's log. */
  onFailure?: (error: Error) => void;
}

// KEYS[1] window hash; ARGV: window ms, limit, amount, now, mode (take | add | count).
// Numbers go back as strings (%.17g: every digit of a double): Redis would cut a Lua number to an integer.
const WINDOW_SCRIPT = `
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local amount = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local mode = ARGV[5]
local function num(x) return string.format('%.17g', x) end
local start = now - (now % windowMs)
local held = redis.call('HMGET', KEYS[1], 'start', 'previous', 'current')
local heldStart = tonumber(held[1])
local previous = tonumber(held[2]) or 0
local current = tonumber(held[3]) or 0
if heldStart == nil then
  previous = 0
  current = 0
elseif heldStart ~= start then
  if start - heldStart == windowMs then previous = current else previous = 0 end
  current = 0
end
local count = previous * (1 - (now % windowMs) / windowMs) + current
local allowed = 1
if mode == 'take' then
  if count + amount > limit then allowed = 0 else current = current + amount; count = count + amount end
elseif mode == 'add' then
  current = math.max(0, current + amount)
end
if mode ~= 'count' or heldStart ~= start then
  redis.call('HSET', KEYS[1], 'start', start, 'previous', num(previous), 'current', num(current))
  redis.call('PEXPIRE', KEYS[1], windowMs * 2)
end
return {allowed, num(count), num(previous), num(current)}
`;

type WindowReply = [number, string, string, string];

/** Counters in Redis. */
export class RedisCounters implements Counters {
  readonly #client: Redis;
  readonly #mode: RedisFailureMode;
  readonly #prefix: string;
  readonly #onFailure: (error: Error) => void;

  constructor(options: RedisCountersOptions) {
    this.#client = options.client;
    this.#mode = options.onError ?? "open";
    this.#prefix = options.prefix ?? "guardgate:limits:";
    this.#onFailure = options.onFailure ?? (() => {});
    this.#client.defineCommand("guardgateWindow", { numberOfKeys: 1, lua: WINDOW_SCRIPT });
  }

  async #window(key: string, windowMs: number, limit: number, amount: number, now: number, mode: string): Promise<WindowReply> {
    const client = this.#client as unknown as {
      guardgateWindow(...args: Array<string | number>): Promise<WindowReply>;
    };
    return client.guardgateWindow(this.#prefix + key, windowMs, limit, amount, Math.floor(now), mode);
  }

  /** The refusal while Redis is down and limits fail closed. */
  #unavailable(error: Error): LimitError {
    this.#onFailure(error);
    return new LimitError(
      "limits_unavailable",
      `rate limits and budgets cannot be counted: Redis is unreachable (${error.message}); requests are refused until it is back (limits.on_redis_error is "closed")`,
      { "retry-after": "1" },
    );
  }

  async take(key: string, windowMs: number, limit: number, amount: number, now: number): Promise<TakeResult> {
    try {
      const [allowed, count, previous, current] = await this.#window(key, windowMs, limit, amount, now, "take");
      if (allowed === 1) return { allowed: true, count: Number(count), retryAfterMs: 0 };
      return {
        allowed: false,
        count: Number(count),
        retryAfterMs: retryAfterMs(Number(previous), Number(current), windowMs, now, limit, amount),
      };
    } catch (error) {
      if (this.#mode === "closed") throw this.#unavailable(error as Error);
      this.#onFailure(error as Error);
      return { allowed: true, count: 0, retryAfterMs: 0 };
    }
  }

  async add(key: string, windowMs: number, amount: number, now: number): Promise<void> {
    try {
      await this.#window(key, windowMs, 0, amount, now, "add");
    } catch (error) {
      this.#onFailure(error as Error);
    }
  }

  async count(key: string, windowMs: number, now: number): Promise<number> {
    try {
      return Number((await this.#window(key, windowMs, 0, 0, now, "count"))[1]);
    } catch (error) {
      if (this.#mode === "closed") throw this.#unavailable(error as Error);
      this.#onFailure(error as Error);
      return 0;
    }
  }

  async total(key: string): Promise<number | undefined> {
    try {
      const value = await this.#client.get(this.#prefix + key);
      return value === null ? undefined : Number(value);
    } catch (error) {
      if (this.#mode === "closed") throw this.#unavailable(error as Error);
      // Undefined: the enforcer reads the spend from the request log instead.
      this.#onFailure(error as Error);
      return undefined;
    }
  }

  async seedTotal(key: string, value: number): Promise<number> {
    try {
      // NX GET: sets only when unset, and answers the value held before (null when it set).
      const held = await this.#client.set(this.#prefix + key, String(value), "NX", "GET");
      return held === null ? value : Number(held);
    } catch (error) {
      if (this.#mode === "closed") throw this.#unavailable(error as Error);
      this.#onFailure(error as Error);
      return value;
    }
  }

  async addTotal(key: string, amount: number): Promise<number> {
    try {
      return Number(await this.#client.incrbyfloat(this.#prefix + key, amount));
    } catch (error) {
      this.#onFailure(error as Error);
      return Number.NaN;
    }
  }
}
