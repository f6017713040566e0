// Whether dist/ is the build of the sources as they are, so `npm start` and `npm test` rebuild only
// when it is not (after `npm ci`, whose `prepare` built dist/, `npm test` builds nothing again). Plain JavaScript because it runs before anything is compiled.
//
//   node scripts/build-stamp.mjs record   after a build: note a digest of its inputs in dist/
//   node scripts/build-stamp.mjs ensure   build (npm run build) unless dist/ holds that digest
//
// The digest is of the inputs' contents, not their times: a checkout, a copy or a touch that
// changes nothing does not force a rebuild, and an edit always does.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const STAMP = path.join(root, "dist", ".build-inputs");

// What `npm run build` reads (the Dockerfile's build stage copies the same). Tests are not built.
const INPUTS = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "index.ts",
  "core",
  "plugins",
  "server",
  "cli",
  "scripts",
  "console",
];
const SKIPPED = /(^|\/)(node_modules|dist)(\/|$)|\.test\.tsx?$/;

function files(relative) {
  const full = path.join(root, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full)
    .sort()
    .flatMap((name) => {
      const child = path.join(relative, name);
      return SKIPPED.test(child) ? [] : files(child);
    });
}

/** A digest of every build input's path and contents. */
function digest() {
  const hash = createHash("sha256");
  for (const file of INPUTS.flatMap(files))
    hash
      .update(`${file}\0`)
      .update(readFileSync(path.join(root, file)))
      .update("\0");
  return hash.digest("hex");
}

const mode = process.argv[2];
if (mode === "record") {
  writeFileSync(STAMP, `${digest()}\n`);
} else if (mode === "ensure") {
  const held = existsSync(STAMP) ? readFileSync(STAMP, "utf8").trim() : "";
  if (held !== digest()) {
    process.stderr.write(
      held ? "guardgate: sources changed since the last build: building\n" : "guardgate: no build yet: building\n",
    );
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const build = spawnSync(npm, ["run", "build"], { cwd: root, stdio: "inherit" });
    process.exit(build.status ?? 1);
  }
} else {
  process.stderr.write("usage: node scripts/build-stamp.mjs record|ensure\n");
  process.exit(2);
}
