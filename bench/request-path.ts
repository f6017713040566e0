/**
 * Which of the `server/` files that ran for a request are on its path, by a rule read from the
 * source rather than chosen by hand: a file is on the path when its code ran and it imports, at run
 * time, another `server/` file whose code ran; the others are leaves (constants, id makers,
 * parsers, interfaces with a default) that the path calls and that call nothing of the gateway's
 * own. Type-only imports (`import type`, or every name marked `type`) load nothing and do not count.
 * Read by `npm run bench:request-files` and by test/docs-stages.test.ts, which holds
 * docs/architecture.md's "One request" to the last measurement without running it again.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The `server/` files a source file imports at run time, as repository paths ending in `.ts`. */
export function runtimeImports(root: string, file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const imported: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const named = clause?.namedBindings;
      const onlyTypes =
        clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      if (onlyTypes) continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      if (statement.isTypeOnly) continue;
      const named = statement.exportClause;
      if (named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)) continue;
      specifier = statement.moduleSpecifier;
    }
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier.text)).replace(/\.js$/, ".ts");
    if (target.startsWith("server/")) imported.push(target);
  }
  return imported;
}

/** The files that ran split into those on the path and the leaves, each sorted. */
export function splitPath(root: string, ran: readonly string[]): { path: string[]; leaves: string[] } {
  const didRun = new Set(ran);
  const onPath: string[] = [];
  const leaves: string[] = [];
  for (const file of [...ran].sort()) {
    (runtimeImports(root, file).some((imported) => didRun.has(imported)) ? onPath : leaves).push(file);
  }
  return { path: onPath, leaves };
}
