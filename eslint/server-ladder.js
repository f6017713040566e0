// The import ladder of server/ as a lint rule: a module of server/ imports only units (folders, or
// files directly in server/) on lower rungs of server/ladder.json, so no two units import each other,
// even through others. test/server-imports.test.ts walks the same graph from the same data.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const server = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "server");

/** The rungs, top first: each a list of units such as "routes/" or "app.ts". */
export const LADDER = JSON.parse(readFileSync(path.join(server, "ladder.json"), "utf8")).rungs.map((rung) => rung.units);

const RUNG = new Map(LADDER.flatMap((units, index) => units.map((unit) => [unit, index])));

/** The unit a path inside server/ belongs to ("routes/", "app.ts"), or undefined outside server/. */
export function unitOf(file) {
  const relative = path.relative(server, file);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  const [first, ...rest] = relative.split(path.sep);
  return rest.length > 0 ? `${first}/` : first.replace(/\.js$/, ".ts");
}

export const serverLadder = {
  meta: {
    type: "problem",
    docs: { description: "server/ imports only down its ladder (server/ladder.json)" },
    messages: {
      up: "{{from}} is on rung {{fromRung}} of server/ladder.json and may not import {{to}} (rung {{toRung}}): imports go down the ladder only.",
      unplaced: "{{unit}} has no rung in server/ladder.json: give it one (and a row in docs/architecture.md, Import graph).",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = unitOf(file);
    if (from === undefined || file.endsWith(".test.ts")) return {};
    const check = (source) => {
      if (source?.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const to = unitOf(path.resolve(path.dirname(file), source.value));
      if (to === undefined || to === from) return;
      for (const unit of [from, to]) {
        if (!RUNG.has(unit)) return context.report({ node: source, messageId: "unplaced", data: { unit } });
      }
      const fromRung = RUNG.get(from);
      const toRung = RUNG.get(to);
      if (toRung <= fromRung) {
        context.report({ node: source, messageId: "up", data: { from, to, fromRung: fromRung + 1, toRung: toRung + 1 } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
