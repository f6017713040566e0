/**
 * The times a phase writes into its results: `created_at` (an ISO string) and `execution_time`
 * (milliseconds). Every check and guardrail of every phase is stamped with both, so they sit on
 * the hot path: formatting a Date (0.46 µs) and `toPrecision` (0.13 µs) each showed in profiles
 * of the gateway, where phases rarely share a millisecond. Both are computed here by hand, to the
 * same strings and numbers.
 */

/** The second `secondPrefix` belongs to, in ms since the epoch. */
let second = Number.NaN;
/** The ISO string of `second` up to its milliseconds: `2026-11-26T03:31:47.`. */
let secondPrefix = "";
let clockMs = Number.NaN;
let clockIso = "";

/** `new Date(ms).toISOString()`, with the date formatted once per second. */
export function isoAt(ms: number): string {
  if (ms === clockMs) return clockIso;
  const start = ms - (((ms % 1000) + 1000) % 1000);
  if (start !== second) {
    second = start;
    // "…SS.000Z" without its milliseconds and Z; years past 9999 keep their longer form.
    secondPrefix = new Date(start).toISOString().slice(0, -4);
  }
  const millis = ms - start;
  clockMs = ms;
  clockIso = `${secondPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
  return clockIso;
}

/** The current time as an ISO string, for `created_at`. */
export function isoNow(): string {
  return isoAt(Date.now());
}

/**
 * 1 to 1e22, the powers of ten a double holds exactly: digits are scaled by one of them, never by
 * a fraction like 0.1. A table, since `10 ** n` is a call to Math.pow.
 */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, n) => 10 ** n);

/**
 * `x` rounded to four significant digits, as `Number(x.toPrecision(4))` gives it, without the
 * string: the digits are scaled to an integer from 1000 to 9999 by a power of ten and rounded.
 * Where that integer is in doubt (a near tie, a logarithm off by one), `toPrecision` decides.
 */
export function fourDigits(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const size = Math.abs(x);
  const shift = 3 - Math.floor(Math.log10(size));
  const power = POWERS_OF_TEN[shift < 0 ? -shift : shift];
  if (power === undefined) return Number(x.toPrecision(4));
  const scaled = shift >= 0 ? size * power : size / power;
  const fraction = scaled - Math.floor(scaled);
  if (scaled < 1000 || scaled >= 10000 || Math.abs(fraction - 0.5) < 1e-9) return Number(x.toPrecision(4));
  const digits = Math.round(scaled);
  // An integer times or over an exact power of ten: the double nearest the decimal, as parsing gives.
  const rounded = shift >= 0 ? digits / power : digits * power;
  return x < 0 ? -rounded : rounded;
}

/** Milliseconds with four significant digits: a fast check reads 0.004, not 0. */
export function elapsed(start: number, end = performance.now()): number {
  return fourDigits(end - start);
}

/**
 * The clock of a phase run without awaiting (run-phase-now.ts): the checks run one after another,
 * so one check's end is the next one's start, and a check reads the clock once, when it ends.
 * `created_at` is the phase's wall-clock start plus the monotonic time since, so it takes no
 * `Date.now()` per check either. Once the phase's synchronous part is over (`live` false), a check
 * that starts later (after a pending transform) reads the clock for its start.
 */
export class PhaseClock {
  readonly #date: number;
  readonly #perf: number;
  /** When the last check run in the synchronous part ended (performance.now()). */
  last: number;
  live = true;

  constructor() {
    this.#date = Date.now();
    this.#perf = performance.now();
    this.last = this.#perf;
  }

  /** When a check starting now starts. */
  start(): number {
    return this.live ? this.last : performance.now();
  }

  /** A check ended at `at`. */
  ended(at: number): void {
    if (this.live) this.last = at;
  }

  /** `created_at` for a performance.now() time of this phase. */
  iso(at: number): string {
    return isoAt(Math.floor(this.#date + (at - this.#perf)));
  }
}
