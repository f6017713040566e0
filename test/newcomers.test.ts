/**
 * What a newcomer meets first: the README's Set-up block's `npm start` serving its own "Try it"
 * examples on a fresh store, `npm start` building only when the sources changed, `guardgate
 * --version`, and dependencies that install on the Node this runs on without an engine warning.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./support/free-port.js";
import { cleanEnv } from "./support/serve-process.js";

const run = promisify(execFile);
const root = path.join(import.meta.dirname, "..");
const bin = path.join(root, "dist/cli/bin.js");
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  version: string;
  scripts: Record<string, string>;
};
// npm's own range reader (installed with the dev tools; it has no types of its own here).
const semver = createRequire(import.meta.url)("semver") as { satisfies(version: string, range: string): boolean };
const scratch = mkdtempSync(path.join(tmpdir(), "guardgate-newcomer-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

/** A README section, from its heading to the next heading of the same level or above. */
function section(heading: string): string {
  const start = readme.indexOf(heading);
  if (start === -1) throw new Error(`README has no "${heading}"`);
  const level = /^#+/.exec(heading)![0];
  const next = readme.slice(start + heading.length).search(new RegExp(`\\n#{1,${level.length}} `));
  return readme.slice(start, next === -1 ? undefined : start + heading.length + next);
}

describe("the README's first start", () => {
  it("serves the Try it examples as written on a fresh store", async () => {
    const setUp = /```sh\n([\s\S]*?)```/.exec(section("## Set-up"))![1]!;
    const start = setUp.split("\n").find((line) => /^npm start\b/.test(line))!;
    // `npm start -- ARGS` runs `guardgate serve ARGS` (the start script's command, built).
    expect(pkg.scripts.start).toMatch(/&& node dist\/cli\/bin\.js serve$/);
    const args = start.replace(/#.*$/, "").trim().split(/\s+/).slice(3);
    const port = await freePort();
    const data = path.join(scratch, "first-start");
    const child = spawn(process.execPath, [bin, "serve", ...args, "--port", String(port), "--log-level", "warn"], {
      cwd: root,
      // A first start: a data folder of its own, empty.
      env: { ...cleanEnv(), GUARDGATE_DATA_DIR: data },
    });
    children.push(child);
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    for (let i = 0; i < 300 && !/guardgate listening on/.test(output); i++) {
      if (child.exitCode !== null) throw new Error(`npm start's command exited: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(output).toContain("first start");

    const curls = [...section("### Try it").matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
      m[1]!.replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`),
    );
    expect(curls).toHaveLength(2);
    const answered = JSON.parse((await run("sh", ["-c", curls[0]!])).stdout);
    expect(answered.choices[0].message.content).toBe("You said: Where is my order?");
    const denied = JSON.parse((await run("sh", ["-c", curls[1]!])).stdout);
    expect(denied.error.type).toBe("hooks_failed");
    expect(denied.hook_results.before_request_hooks[0]).toMatchObject({ id: "no-ssn", verdict: false });
    child.kill("SIGTERM");
  });
});

describe("npm start", () => {
  // The stamp script in a folder of its own, with a build that only counts how often it ran.
  const dir = path.join(scratch, "project");
  const builds = () => readFileSync(path.join(dir, "builds.txt"), "utf8").length;
  const ensure = () => run(process.execPath, ["scripts/build-stamp.mjs", "ensure"], { cwd: dir, env: cleanNpmEnv() });

  function cleanNpmEnv(): NodeJS.ProcessEnv {
    return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  }

  it("builds first, then again only when a build input's contents changed", async () => {
    expect(pkg.scripts.start).toMatch(/^node scripts\/build-stamp\.mjs ensure && /);
    expect(pkg.scripts.build).toMatch(/&& node scripts\/build-stamp\.mjs record$/);
    mkdirSync(path.join(dir, "core"), { recursive: true });
    mkdirSync(path.join(dir, "dist"));
    cpSync(path.join(root, "scripts/build-stamp.mjs"), path.join(dir, "scripts/build-stamp.mjs"));
    writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({
        name: "stamp-test",
        private: true,
        scripts: { build: "node -e \"require('fs').appendFileSync('builds.txt', 'b')\" && node scripts/build-stamp.mjs record" },
      }),
    );
    writeFileSync(path.join(dir, "builds.txt"), "");
    writeFileSync(path.join(dir, "core/engine.ts"), "export const a = 1;\n");

    await ensure();
    expect(builds()).toBe(1);
    await ensure();
    expect(builds()).toBe(1);
    // A touch (a checkout, a copy) changes no contents: no build.
    utimesSync(path.join(dir, "core/engine.ts"), new Date(), new Date(Date.now() + 60_000));
    await ensure();
    expect(builds()).toBe(1);
    // Tests are not built.
    writeFileSync(path.join(dir, "core/engine.test.ts"), "test");
    await ensure();
    expect(builds()).toBe(1);
    writeFileSync(path.join(dir, "core/engine.ts"), "export const a = 2;\n");
    await ensure();
    expect(builds()).toBe(2);
    writeFileSync(path.join(dir, "core/new.ts"), "export {};\n");
    await ensure();
    expect(builds()).toBe(3);
  });
});

describe("guardgate --version", () => {
  it("prints the package's version", async () => {
    const { stdout } = await run(process.execPath, [bin, "--version"]);
    expect(stdout).toBe(`${pkg.version}\n`);
  });
});

describe("installing", () => {
  it("locks no package that refuses the Node this runs on (no EBADENGINE warning)", () => {
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node && !semver.satisfies(process.version, entry.engines.node))
      .map(([where, entry]) => `${where}@${entry.version} (node ${entry.engines!.node})`);
    expect(refusing).toEqual([]);
  });
});
