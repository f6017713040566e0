/**
 * JSON paths as users read them in error messages: `input_guardrails[0].checks[1].parameters.max`.
 */

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** Appends one key or index to a path. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  if (IDENTIFIER.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Appends a JSON pointer (`/a/0/b`, as ajv reports it) to a path. */
export function joinPointer(base: string, pointer: string): string {
  if (!pointer) return base;
  let path = base;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    path = joinPath(path, /^\d+$/.test(key) ? Number(key) : key);
  }
  return path;
}
