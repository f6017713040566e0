/**
 * The times a phase writes into its results: `created_at` (an ISO string) and `execution_time`
 * (milliseconds). Every check and guardrail of every phase is stamped with both, so they sit on
 * the hot path and are kept here, in one place, to be made cheap once.
 */

let clockMs = -1;
let clockIso = "";

/**
 * The current time as an ISO string, for `created_at`. A phase stamps every check and guardrail;
 * within one millisecond the string is the same, so it is formatted once per millisecond.
 */
export function isoNow(): string {
  const now = Date.now();
  if (now !== clockMs) {
    clockMs = now;
    clockIso = new Date(now).toISOString();
  }
  return clockIso;
}

/** Milliseconds with four significant digits: a fast check reads 0.004, not 0. */
export function elapsed(start: number, end = performance.now()): number {
  return Number((end - start).toPrecision(4));
}
