/**
 * The import graph of server/, folder by folder (a file directly in server/ counts as a unit of its
 * own), against the ladder of docs/architecture.md ("Import graph"): every import goes down the
 * ladder, never up or across a rung, so no units import each other in a circle. KNOWN_CYCLES is
 * empty: any circle fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const server = path.join(root, "server");

/** Each circle tolerated, by its units, sorted; with the module that closes it. None today. */
const KNOWN_CYCLES: ReadonlyArray<{ units: readonly string[]; why: string }> = [];

/** The ladder, top rung first (server/ladder.json, which the lint rule reads too). */
const LADDER: ReadonlyArray<readonly string[]> = (
  JSON.parse(readFileSync(path.join(server, "ladder.json"), "utf8")) as { rungs: Array<{ units: string[] }> }
).rungs.map((rung) => rung.units);

/** The unit a server file belongs to: its first folder ("routes/"), or its own name for a file directly in server/. */
function unitOf(file: string): string {
  const [first, ...rest] = path.relative(server, file).split(path.sep);
  return rest.length > 0 ? `${first as string}/` : (first as string);
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*)"(\.{1,2}\/[^"]+)"/g;

/** Units each unit imports, other than itself. */
function unitGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(server)) {
    const from = unitOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const target = path.resolve(path.dirname(file), match[1] as string);
      if (!target.startsWith(server + path.sep)) continue;
      const to = unitOf(target.replace(/\.js$/, ".ts"));
      if (to !== from) targets.add(to);
    }
  }
  return graph;
}

/** The strongly connected groups of more than one unit (Tarjan), each sorted. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (unit: string): void => {
    index.set(unit, index.size);
    low.set(unit, index.get(unit) as number);
    stack.push(unit);
    onStack.add(unit);
    for (const next of graph.get(unit) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(unit, Math.min(low.get(unit) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(unit, Math.min(low.get(unit) as number, index.get(next) as number));
      }
    }
    if (low.get(unit) !== index.get(unit)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(member);
      if (member === unit) break;
    }
    if (group.length > 1) found.push(group.sort());
  };
  for (const unit of [...graph.keys()].sort()) if (!index.has(unit)) visit(unit);
  return found.sort((a, b) => (a.join() < b.join() ? -1 : 1));
}

describe("server/'s import graph", () => {
  const graph = unitGraph();

  it("reads every folder of server/", () => {
    for (const unit of ["routes/", "request/", "providers/", "store/", "app.ts"]) expect(graph.has(unit)).toBe(true);
  });

  it("has no circle beyond the known ones, and each known one is still as it was", () => {
    expect(cycles(graph)).toEqual(KNOWN_CYCLES.map((known) => [...known.units]));
  });

  it("places every unit on one rung of the ladder", () => {
    const placed = LADDER.flat();
    expect(new Set(placed).size).toBe(placed.length);
    expect([...graph.keys()].filter((unit) => !placed.includes(unit)).sort()).toEqual([]);
  });

  it("imports only down the ladder", () => {
    const rung = new Map(LADDER.flatMap((units, index) => units.map((unit) => [unit, index] as const)));
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) if ((rung.get(to) ?? -1) <= (rung.get(from) ?? -1)) upward.push(`${from} → ${to}`);
    }
    expect(upward.sort()).toEqual([]);
  });

  it("finds a circle that a new import would close", () => {
    const bent = new Map([...graph].map(([unit, targets]) => [unit, new Set(targets)]));
    // store/ is imported by routes/ through the app; it must never import them back.
    bent.get("store/")?.add("routes/");
    expect(cycles(bent).some((group) => group.includes("store/") && group.includes("routes/"))).toBe(true);
  });
});

describe("the ladder's other readers", () => {
  it("has the lint rule refuse an import up the ladder and a unit with no rung", async () => {
    const eslint = new ESLint({ cwd: root });
    const messages = async (file: string, source: string) => {
      const [result] = await eslint.lintText(source, { filePath: path.join(server, file) });
      return (result?.messages ?? []).filter((m) => m.ruleId === "guardgate/server-ladder").map((m) => m.message);
    };
    const up = await messages(
      "store/example.ts",
      'import type { Pipeline } from "../request/pipeline.js";\nexport type P = Pipeline;\n',
    );
    expect(up).toEqual([expect.stringContaining("store/ is on rung")]);
    expect(up[0]).toContain("may not import request/");
    expect(
      await messages("request/example.ts", 'import type { Store } from "../store/store.js";\nexport type S = Store;\n'),
    ).toEqual([]);
    expect(await messages("store/example.ts", 'export { x } from "../unplaced.js";\n')).toEqual([
      expect.stringContaining("unplaced.ts has no rung"),
    ]);
  });

  it("is the table of docs/architecture.md, rung by rung", () => {
    const docs = readFileSync(path.join(root, "docs", "architecture.md"), "utf8");
    const section = docs.slice(docs.indexOf("### Import graph"), docs.indexOf("\n## ", docs.indexOf("### Import graph")));
    const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map((row) =>
      [...(row[2] as string).matchAll(/`([^`]+)`/g)].map((m) => m[1]),
    );
    expect(rows).toEqual(LADDER.map((units) => [...units]));
  });
});
