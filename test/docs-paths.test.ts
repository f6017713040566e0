/**
 * The docs name source files by path; a file moved or renamed leaves the docs pointing nowhere.
 * Every path under `server/`, `core/`, `cli/`, `plugins/` or `scripts/` that a page of docs/ or the
 * README names (a file with its extension, or a folder with its trailing slash) must exist, and so
 * must the `server/`-relative paths of docs/architecture.md's "One request" and glossary.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const ROOTED = /(?<![\w./-])((?:server|core|cli|plugins|scripts)\/[\w./-]*?(?:\.(?:ts|js|json|md)|\/))(?![\w/-])/g;
// In architecture.md, a backticked path such as `request/open.ts` is read from server/.
const SERVER_RELATIVE = /`([a-z-]+\/[\w./-]+\.ts)`/g;

/** Whether a named path exists, a compiled `.js` name standing for its `.ts` source. */
function exists(named: string): boolean {
  return existsSync(path.join(root, named)) || existsSync(path.join(root, named.replace(/\.js$/, ".ts")));
}

/** The paths a page names that do not exist, as `line: path`. */
function missingPaths(page: string, text: string): string[] {
  const missing: string[] = [];
  text.split("\n").forEach((line, index) => {
    for (const match of line.matchAll(ROOTED)) {
      const named = match[1] as string;
      if (!exists(named)) missing.push(`${index + 1}: ${named}`);
    }
    if (page !== "docs/architecture.md") return;
    for (const match of line.matchAll(SERVER_RELATIVE)) {
      const named = match[1] as string;
      if (/^(server|core|cli|plugins|scripts|bench|test|console|docs)\//.test(named)) continue;
      if (!exists(`server/${named}`)) missing.push(`${index + 1}: ${named} (under server/)`);
    }
  });
  return missing;
}

const PAGES = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

describe("paths named in the docs", () => {
  it.each(PAGES)("%s names only paths that exist", (page) => {
    expect(missingPaths(page, readFileSync(path.join(root, page), "utf8"))).toEqual([]);
  });

  it("finds a path that does not exist, rooted or under server/", () => {
    const text = "see `server/plan/build.ts` and `server/request/` and `request/plan.ts`\n`server/discover` is a method";
    expect(missingPaths("docs/architecture.md", text)).toEqual(["1: server/plan/build.ts", "1: request/plan.ts (under server/)"]);
  });
});
