/**
 * No module imports itself back through others, file by file, in core/, plugins/, server/ and
 * cli/. Type-only imports count: a circle of types is still two modules that cannot be read, moved
 * or tested apart. server/'s folders are held to their ladder by test/server-imports.test.ts; this
 * check looks inside each folder too.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const TREES = ["core", "plugins", "server", "cli"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/**
 * Relative specifiers of every import: static (`import type` included), side-effect, re-export and
 * dynamic. Comments are not stripped: a specifier quoted in a comment would only add an edge.
 */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

/** The module graph, by path relative to the repository root. */
function moduleGraph(files: readonly string[], read: (file: string) => string): Map<string, Set<string>> {
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of read(file).matchAll(SPECIFIER)) {
      const target = path.posix.join(path.posix.dirname(file), match[1] as string).replace(/\.js$/, ".ts");
      if (known.has(target) && target !== file) targets.add(target);
      else if (known.has(`${target}/index.ts`)) targets.add(`${target}/index.ts`);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected groups of more than one module (Tarjan), each sorted. */
function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

describe("the module graph", () => {
  const files = TREES.flatMap((tree) => sources(path.join(root, tree))).map((file) =>
    path.relative(root, file).split(path.sep).join("/"),
  );
  const graph = moduleGraph(files, (file) => readFileSync(path.join(root, file), "utf8"));

  it("reads every tree", () => {
    for (const file of ["core/index.ts", "plugins/builtin.ts", "server/app.ts", "cli/main.ts"])
      expect(graph.has(file)).toBe(true);
    expect(graph.get("cli/bin.ts")).toContain("cli/main.ts");
  });

  it("has no circle, type-only imports included", () => {
    expect(circles(graph).map((group) => group.join(" → "))).toEqual([]);
  });

  it("finds a circle closed by a type-only import", () => {
    const modules: Record<string, string> = {
      "x/a.ts": 'import { b } from "./b.js";\n',
      "x/b.ts": 'export { c } from "./sub/c.js";\n',
      "x/sub/c.ts": 'import type { A } from "../a.js";\n',
      "x/d.ts": 'import type { A } from "./a.js";\n',
    };
    const bent = moduleGraph(Object.keys(modules), (file) => modules[file] as string);
    expect(circles(bent)).toEqual([["x/a.ts", "x/b.ts", "x/sub/c.ts"]]);
  });
});
