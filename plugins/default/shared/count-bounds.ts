/**
 * The shared logic of the count checks: an inclusive range with a default minimum of 0 and no
 * maximum, optionally inverted by `not`, and an explanation a reader can act on.
 */
import type { ParameterProblem } from "../../../core/index.js";

/** Outcome of comparing a count with its bounds. */
export interface BoundsOutcome {
  verdict: boolean;
  explanation: string;
}

/** Range as text: "between 1 and 5", "at least 2", "at most 3". */
function describeRange(min: number, max: number | undefined): string {
  if (max === undefined) return `at least ${min}`;
  if (min === 0) return `at most ${max}`;
  return `between ${min} and ${max}`;
}

/** Compares `count` (of `unit`, plural) with `[min, max]`, inverted when `not`. */
export function checkBounds(count: number, unit: string, min: number, max: number | undefined, not: boolean): BoundsOutcome {
  const inRange = count >= min && (max === undefined || count <= max);
  const verdict = not ? !inRange : inRange;
  const range = describeRange(min, max);
  const where = inRange ? `within the allowed range (${range})` : `outside the allowed range (${range})`;
  const inverted = not ? `; the check is inverted (not: true), so it ${verdict ? "passes" : "fails"}` : "";
  return { verdict, explanation: `The text has ${count} ${unit}, ${where}${inverted}.` };
}

/** Load-time check that a minimum does not exceed its maximum. */
export function rangeProblem(min: unknown, max: unknown, maxName: string): ParameterProblem | undefined {
  if (typeof min === "number" && typeof max === "number" && min > max) {
    return { parameter: maxName, message: `must be at least the minimum (${min})` };
  }
  return undefined;
}
