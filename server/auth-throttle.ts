/**
 * Throttling of failed API keys, per source address, for every route that takes a key (`/v1`,
 * `/admin/v1`, and so the console's sign-in). A source that sent `failures` unknown keys within a
 * window is refused with 429 and `retry-after` until the window it was stopped in has passed, and
 * its keys are not even looked up meanwhile: guessing keys runs at a few tries a minute, and a flood
 * of random keys costs no store lookups. A source that keeps sending valid keys is never slowed.
 *
 * The counts are per instance and held in memory, bounded to the most recent sources.
 */
import ipaddr from "ipaddr.js";
import { LRUCache } from "lru-cache";
import { ConfigError } from "../core/index.js";

/** Options of the throttle. */
export interface AuthThrottleOptions {
  /** Unknown keys a source may send per window; default 10. */
  failures?: number;
  /** The window and the time a stopped source waits, ms; default 60 s. */
  windowMs?: number;
  /** Sources counted at once, the least recent forgotten first; default 10,000. */
  maxSources?: number;
  /** The clock, ms. */
  now?: () => number;
}

interface SourceState {
  windowStart: number;
  failures: number;
  /** When a stopped source may try again; 0 while it is not stopped. */
  blockedUntil: number;
}

/** What counting a failed key found. */
export interface FailureCount {
  /** Failed keys of the source in the current window. */
  failures: number;
  /** True when this failure is the one that stopped the source. */
  stopped: boolean;
  /**
   * Seconds the source must wait, when this failure came after it was stopped: keys looked up
   * concurrently, before the stop, are answered as the stopped source's are (429).
   */
  retryAfterSeconds: number;
}

/** Counts failed keys per source and says when a source must wait. */
export class AuthThrottle {
  readonly #failures: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #sources: LRUCache<string, SourceState>;

  constructor(options: AuthThrottleOptions = {}) {
    this.#failures = options.failures ?? 10;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#sources = new LRUCache({ max: options.maxSources ?? 10_000 });
  }

  /** Seconds the source must wait before a key of it is looked at again; 0 when it may go on. */
  retryAfter(source: string): number {
    const state = this.#sources.get(source);
    if (!state || state.blockedUntil === 0) return 0;
    const left = state.blockedUntil - this.#now();
    if (left > 0) return Math.ceil(left / 1000);
    this.#sources.delete(source);
    return 0;
  }

  /** Counts an unknown key sent by `source`. */
  failed(source: string): FailureCount {
    const now = this.#now();
    let state = this.#sources.get(source);
    if (!state || now - state.windowStart >= this.#windowMs) {
      state = { windowStart: now, failures: 0, blockedUntil: 0 };
      this.#sources.set(source, state);
    }
    state.failures += 1;
    if (state.blockedUntil !== 0) {
      return {
        failures: state.failures,
        stopped: false,
        retryAfterSeconds: Math.max(1, Math.ceil((state.blockedUntil - now) / 1000)),
      };
    }
    const stopped = state.failures >= this.#failures;
    if (stopped) state.blockedUntil = now + this.#windowMs;
    return { failures: state.failures, stopped, retryAfterSeconds: 0 };
  }
}

/**
 * `settings.trust_proxy` as fastify's `trustProxy`: which proxies may name the client in
 * `X-Forwarded-For`. Each address or CIDR range is checked here, so a typo stops the start with its
 * path rather than an error from deep inside fastify.
 */
export function trustedProxies(setting: boolean | readonly string[] | undefined): boolean | string[] {
  if (setting === undefined || typeof setting === "boolean") return setting ?? false;
  return setting.map((entry, index) => {
    const valid = entry.includes("/") ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw new ConfigError(`settings.trust_proxy[${index}]`, `"${entry}" is not an IP address or CIDR range`);
    return entry;
  });
}
