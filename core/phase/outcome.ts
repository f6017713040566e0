/**
 * What a check gave back, made safe to report: its outcome checked against the plugin API's
 * contract, or whatever it threw turned into the result's `error`. Checks are code guardgate does
 * not control (a plugin may return or throw anything), so neither is trusted as it comes.
 */
import { plainDataProblem } from "../plain-data.js";
import type { CheckOutcome } from "../plugin-api.js";
import type { CheckErrorValue } from "../types.js";

/** The outcome when it keeps the plugin API's contract; else a TypeError naming check `id` and what is wrong. */
export function validOutcome(outcome: unknown, id: string): CheckOutcome {
  if (!outcome || typeof outcome !== "object" || typeof (outcome as CheckOutcome).verdict !== "boolean") {
    throw new TypeError(`check ${id} returned no boolean verdict`);
  }
  const data = (outcome as CheckOutcome).data;
  if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) {
    throw new TypeError(`check ${id} returned data that is not an object`);
  }
  const text = (outcome as CheckOutcome).transformedText;
  if (text !== undefined && typeof text !== "string")
    throw new TypeError(`check ${id} returned a transformedText that is not a string`);
  // Results cross threads and become JSON: the same output must survive both, inline or in a worker.
  const { transformedRequest, transformedResponse, log } = outcome as CheckOutcome;
  const problem =
    plainDataProblem(data, "data") ??
    plainDataProblem(transformedRequest, "transformedRequest") ??
    plainDataProblem(transformedResponse, "transformedResponse");
  if (problem) throw new TypeError(`check ${id} returned output that is not plain data: ${problem}`);
  if (log !== undefined && log !== null && typeof log !== "string")
    throw new TypeError(`check ${id} returned a log that is not a string`);
  return outcome as CheckOutcome;
}

/** A check's error as a result shows it. */
export function errorValue(error: unknown): CheckErrorValue {
  // A hostile check may throw anything, even a value whose name, message or conversion throws.
  try {
    if (error instanceof Error) return { name: String(error.name), message: String(error.message) };
    if (typeof error === "string") return error;
    return { name: "Error", message: String(error) };
  } catch {
    return { name: "Error", message: "the check threw a value that cannot be described" };
  }
}
