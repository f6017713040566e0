/**
 * Bearer tokens an outbound call exchanges credentials for (a Google service account's, an Entra
 * application's), cached per process until they are due for renewal. Concurrent calls for one
 * key share one exchange instead of each posting its own, and a bounded map keeps a process that
 * sees many accounts from growing without end.
 */

/** A token and the time (ms since the epoch) from which it should be renewed. */
export interface RenewableToken {
  token: string;
  renewAt: number;
}

/** Fresh tokens by key; a fetch in flight is shared by the calls waiting on it. */
export class TokenCache {
  readonly #tokens = new Map<string, RenewableToken>();
  readonly #pending = new Map<string, Promise<RenewableToken>>();

  /** `max`: tokens kept; past it, those due go first, then the oldest. */
  constructor(private readonly max: number) {}

  /** The cached token for `key` while `now` is before its renewal, else one from `fetch`. */
  async get(key: string, fetch: () => Promise<RenewableToken>, now = Date.now()): Promise<string> {
    const cached = this.#tokens.get(key);
    if (cached && cached.renewAt > now) return cached.token;
    let fetching = this.#pending.get(key);
    if (!fetching) {
      fetching = fetch().finally(() => this.#pending.delete(key));
      this.#pending.set(key, fetching);
    }
    const fresh = await fetching;
    if (this.#tokens.size >= this.max && !this.#tokens.has(key)) this.#evict(now);
    this.#tokens.set(key, fresh);
    return fresh.token;
  }

  /** Forgets every token (tests, and a process that rotates its credentials). */
  clear(): void {
    this.#tokens.clear();
  }

  #evict(now: number): void {
    for (const [key, token] of this.#tokens) if (token.renewAt <= now) this.#tokens.delete(key);
    if (this.#tokens.size >= this.max) this.#tokens.delete(this.#tokens.keys().next().value as string);
  }
}
