/**
 * Retry timing: exponential backoff with jitter, and `Retry-After` honoured when the upstream
 * sends it (429 and 503 carry it), within a bound so a far-off date never parks a request.
 */

/** Retry timing options. */
export interface RetryTiming {
  /** First backoff step; default 250 ms. */
  baseDelayMs?: number;
  /** Largest backoff step; default 8 s. */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned instead. Default 60 s. */
  maxRetryAfterMs?: number;
}

/** Milliseconds a `Retry-After` value asks for (seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `attempt` (0 for the first retry), or undefined when the upstream
 * asked for a wait longer than allowed. Equal jitter: half the step fixed, half random, so
 * retries of many clients spread out but never fire at once.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  timing: RetryTiming = {},
  random = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined) {
    return retryAfterMs <= (timing.maxRetryAfterMs ?? 60_000) ? retryAfterMs : undefined;
  }
  const step = Math.min(timing.maxDelayMs ?? 8_000, (timing.baseDelayMs ?? 250) * 2 ** attempt);
  return Math.round(step / 2 + random() * (step / 2));
}

/** Waits, or rejects when the signal aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
