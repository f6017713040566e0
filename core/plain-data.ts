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

/** Where `value` is not plain data, e.g. `data.callback is a function`; undefined when it is. */
export function plainDataProblem(value: unknown, path: string, depth = 0): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${path} is ${describe(value)}`;
    case "object":
      break;
    default:
      return `${path} is ${describe(value)}`;
  }
  if (value === null) return undefined;
  if (depth >= MAX_DEPTH) return `${path} is nested deeper than ${MAX_DEPTH} levels (a cycle?)`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = plainDataProblem(value[i], `${path}[${i}]`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return `${path} is ${describe(value)}`;
  for (const key in value) {
    const problem = plainDataProblem((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}
