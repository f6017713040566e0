/**
 * Plain data: what JSON and structured clone both carry unchanged (null, booleans, finite numbers,
 * strings, arrays, and objects whose prototype is Object's or null). Check results cross threads
 * and end up in JSON responses and logs, so a check's output must be plain data wherever it ran.
 */

const MAX_DEPTH = 64;

function describe(value: unknown): string {
  if (typeof value === "object" && value !== null) return `a ${value.constructor?.name ?? "object"} instance`;
  if (typeof value === "number") return String(value);
  return `a ${typeof value}`;
}

/** What is wrong and where, with the path's steps collected innermost first as the search unwinds. */
interface Problem {
  steps: string[];
  what: string;
}

/**
 * Where `value` is not plain data, e.g. `data.callback is a function`; undefined when it is. Runs on
 * every check result, so the path is only spelled out once a problem is found.
 */
export function plainDataProblem(value: unknown, path: string): string | undefined {
  const problem = find(value, 0);
  return problem && `${path}${problem.steps.reverse().join("")} is ${problem.what}`;
}

function find(value: unknown, depth: number): Problem | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : { steps: [], what: describe(value) };
    case "object":
      break;
    default:
      return { steps: [], what: describe(value) };
  }
  if (value === null) return undefined;
  if (depth >= MAX_DEPTH) return { steps: [], what: `nested deeper than ${MAX_DEPTH} levels (a cycle?)` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = find(value[i], depth + 1);
      if (problem) {
        problem.steps.push(`[${i}]`);
        return problem;
      }
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return { steps: [], what: describe(value) };
  for (const key in value) {
    const problem = find((value as Record<string, unknown>)[key], depth + 1);
    if (problem) {
      problem.steps.push(`.${key}`);
      return problem;
    }
  }
  return undefined;
}

/** Whether `value` is an object with fields to read: not null and not an array (a JSON object, once parsed). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
