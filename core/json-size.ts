/**
 * Whether a value's JSON surely fits a number of bytes, told without serialising it. Every check
 * result's data is held to a size cap (result-data.ts); serialising each one just to measure it
 * cost more than a cheap check itself, while nearly all data is a few hundred bytes. An upper
 * bound of the JSON's UTF-8 size is enough to let those through: only data whose bound passes the
 * cap needs to be serialised and measured exactly.
 */

/** Deeper than this, the bound gives up (a cycle, or data no check should return): measure exactly. */
const MAX_DEPTH = 64;

/**
 * The most UTF-8 bytes one UTF-16 code unit of a string takes in JSON: a control character or a
 * lone surrogate is escaped as `\uXXXX` (6); anything else takes at most 3 bytes.
 */
const BYTES_PER_UNIT = 6;

/** The longest JSON a finite number takes, e.g. `-2.2250738585072014e-308`; NaN and ±Infinity are `null`. */
const NUMBER_BYTES = 24;

/**
 * True when `JSON.stringify(value)` is at most `max` UTF-8 bytes for sure; false when it may be
 * larger, or when the value is not plain data the bound understands (class instances, `toJSON`,
 * functions, BigInt, cycles, getters that throw): the caller then serialises and measures it.
 */
export function jsonFits(value: unknown, max: number): boolean {
  try {
    return bound(value, max, 0) <= max;
  } catch {
    return false;
  }
}

/** An upper bound of the JSON's size, or any number above `budget` once it is passed. */
function bound(value: unknown, budget: number, depth: number): number {
  switch (typeof value) {
    case "string":
      return 2 + BYTES_PER_UNIT * value.length;
    case "number":
      return NUMBER_BYTES;
    case "boolean":
      return 5;
    // `null` in an array; left out of an object, which the bound need not know.
    case "undefined":
      return 4;
    case "object":
      break;
    default:
      return Number.POSITIVE_INFINITY;
  }
  if (value === null) return 4;
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") return Number.POSITIVE_INFINITY;
  // The brackets; then each item and a comma (one more comma than JSON writes).
  let size = 2;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      size += 1 + bound(value[i], budget - size, depth + 1);
      if (size > budget) return size;
    }
    return size;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return Number.POSITIVE_INFINITY;
  // for...in also visits inherited enumerable keys, which JSON leaves out: they only raise the bound.
  for (const key in value) {
    // The quoted key, its colon and a comma.
    size += 4 + BYTES_PER_UNIT * key.length + bound((value as Record<string, unknown>)[key], budget - size, depth + 1);
    if (size > budget) return size;
  }
  return size;
}
