import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The README's examples run as pasted: each block after a `<!-- readme-example: NAME -->` marker.
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const work = path.join(root, "test", ".readme-run");

function example(name: string): string {
  const match = readme.match(new RegExp(`<!-- readme-example: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\`\\n`));
  if (!match?.[1]) throw new Error(`README has no example named ${name}`);
  return match[1];
}

mkdirSync(work, { recursive: true });
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("README examples", () => {
  it("the library example prints what its comments say", () => {
    // Inside the package folder, `import "guardgate"` resolves to the package itself.
    const file = path.join(work, "example.mjs");
    writeFileSync(file, example("library"));
    const run = spawnSync(process.execPath, [file], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim().split("\n")).toEqual(["446", "[ 'no-ssn: false', 'short: true' ]"]);
  });

  it("the command-line example prints what its comments say", () => {
    const run = spawnSync("bash", ["-c", example("cli")], { cwd: work, encoding: "utf8" });
    expect(run.stdout.trim().split("\n")).toEqual(["exit status 1", "446"]);
    // `npx` starts npm before the command: seconds on a busy machine.
  }, 120_000);
});
