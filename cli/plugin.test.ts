import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { GuardgateError } from "../index.js";
import { guardgateRoot, pluginIdFor, scaffoldPlugin } from "./plugin-scaffold.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = path.join(root, "dist/cli/bin.js");
const work = mkdtempSync(path.join(tmpdir(), "guardgate-plugin-new-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function guardgate(args: string[], cwd = work) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("scaffoldPlugin", () => {
  it("writes the package with its names filled in and guardgate as a file: dependency on this installation", async () => {
    const result = await scaffoldPlugin({ name: "@acme/guardgate-checks" }, work);
    expect(result.dir).toBe(path.join(work, "guardgate-checks"));
    expect(result.pluginId).toBe("checks");
    expect(result.files).toEqual([
      ".gitignore",
      "README.md",
      "bench/latency.ts",
      "package.json",
      "src/index.ts",
      "src/maxLinks.ts",
      "test/maxLinks.test.ts",
      "tsconfig.json",
    ]);
    const manifest = JSON.parse(readFileSync(path.join(result.dir, "package.json"), "utf8"));
    const own = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    expect(manifest).toMatchObject({
      name: "@acme/guardgate-checks",
      type: "module",
      engines: own.engines,
      peerDependencies: { guardgate: `^${own.version}` },
      devDependencies: { guardgate: `file:${guardgateRoot()}`, typescript: own.devDependencies.typescript },
      scripts: { test: "npm run build && node --test dist/test/" },
    });
    expect(guardgateRoot()).toBe(path.resolve(root));
    const index = readFileSync(path.join(result.dir, "src/index.ts"), "utf8");
    expect(index).toContain('id: "checks"');
    expect(index).toContain('name: "@acme/guardgate-checks"');
    expect(readFileSync(path.join(result.dir, "README.md"), "utf8")).toContain("acme-guardgate-checks-0.1.0.tgz");
    for (const file of result.files) expect(readFileSync(path.join(result.dir, file), "utf8")).not.toMatch(/__[A-Z_]+__/);
  });

  it("takes a registry version spec for both the peer and the dev dependency", async () => {
    const result = await scaffoldPlugin({ name: "ranged", guardgate: "^0.1.0", id: "ranged_checks" }, work);
    expect(result.packageJson).toMatchObject({
      peerDependencies: { guardgate: "^0.1.0" },
      devDependencies: { guardgate: "^0.1.0" },
    });
    expect(result.packageJson).not.toHaveProperty("allowScripts");
    expect(result.pluginId).toBe("ranged_checks");
  });

  it.each([
    ["guardgate-plugin-pii", "pii"],
    ["@team/guardgate-tone", "tone"],
    ["my.checks", "my-checks"],
    ["123-checks", "checks"],
  ])("derives the plugin id of %s as %s", (name, id) => {
    expect(pluginIdFor(name)).toBe(id);
  });

  it("refuses a bad package name, a bad or built-in id, and a folder that is not empty", async () => {
    await expect(scaffoldPlugin({ name: "Bad Name" }, work)).rejects.toThrow(/"Bad Name" is not a valid npm package name/);
    await expect(scaffoldPlugin({ name: "ok-name", id: "1x" }, work)).rejects.toThrow(/"1x" is not a valid plugin id/);
    await expect(scaffoldPlugin({ name: "guardgate-default" }, work)).rejects.toThrow(/built-in plugin/);
    mkdirSync(path.join(work, "taken"));
    writeFileSync(path.join(work, "taken", "file"), "");
    await expect(scaffoldPlugin({ name: "taken" }, work)).rejects.toThrow(GuardgateError);
    await expect(scaffoldPlugin({ name: "taken" }, work)).rejects.toThrow(/taken already exists and is not empty/);
  });
});

describe("guardgate plugin new", () => {
  it("writes the package into --dir and prints the next steps", () => {
    const run = guardgate(["plugin", "new", "acme-tone", "--dir", "tone-plugin"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('wrote plugin "acme-tone" (package acme-tone) to tone-plugin:');
    expect(run.stdout).toContain("  npm test");
    expect(JSON.parse(readFileSync(path.join(work, "tone-plugin", "package.json"), "utf8")).name).toBe("acme-tone");
  });

  it.each([
    ["no action", ["plugin"], /use: plugin new NAME/],
    ["an unknown action", ["plugin", "old", "x"], /unknown action "old"/],
    ["no name", ["plugin", "new"], /needs the package NAME/],
    ["an unknown option", ["plugin", "new", "x", "--colour"], /Unknown option '--colour'/],
  ])("exits 2 with one line on %s", (_name, args, message) => {
    const run = guardgate(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
