import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { schemaType } from "./plugins-list.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, "../dist/cli/bin.js");
const fixtures = path.join(here, "../test/fixtures/plugins");
const gateway = mkdtempSync(path.join(tmpdir(), "guardgate-plugins-list-"));
afterAll(() => rmSync(gateway, { recursive: true, force: true }));

function guardgate(args: string[]) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: fixtures, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("guardgate plugins list", () => {
  it("prints every plugin with its class and source, and every check with its sides and parameters", () => {
    const run = guardgate(["plugins", "list", "--plugin", "./file-plugin.mjs"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("default (BASIC, apiVersion 1) from guardgate (built in)");
    expect(run.stdout).toContain("  default.wordCount  sides: input, output; deterministic; time limit 2000 ms");
    expect(run.stdout).toMatch(/\n {4}rule {2}string, required {2}The regular expression/);
    expect(run.stdout).toContain('acme (custom, apiVersion 1) from "./file-plugin.mjs"');
    expect(run.stdout).toContain("  acme.shouting  sides: input, output; deterministic; time limit 2000 ms");
    expect(run.stdout).toContain("    minLetters  integer, default 3");
  });

  it("prints the same as JSON with each check's metadata and parameter schema", () => {
    const run = guardgate(["plugins", "list", "--plugin", "./pkg-plugin", "--json"]);
    expect(run.code).toBe(0);
    const { plugins } = JSON.parse(run.stdout);
    // The built-in plugins first (default, then the partner plugins), the loaded one last.
    const ids = plugins.map((p: { id: string }) => p.id);
    expect([ids[0], ids.at(-1)]).toEqual(["default", "pkg"]);
    const pkg = plugins.at(-1);
    expect(pkg).toMatchObject({ class: "custom", apiVersion: 1, source: '"./pkg-plugin"' });
    expect(pkg.checks[0]).toMatchObject({ id: "pkg.always", sides: expect.any(Array), parameters: { type: "object" } });
  });

  it("loads the plugins of a gateway config file, resolved from the file's folder", () => {
    copyFileSync(path.join(fixtures, "file-plugin.mjs"), path.join(gateway, "file-plugin.mjs"));
    writeFileSync(path.join(gateway, "gateway.yaml"), 'plugins: ["./file-plugin.mjs"]\n');
    const run = guardgate(["plugins", "list", "--config", path.join(gateway, "gateway.yaml"), "--json"]);
    expect(run.stderr).toBe("");
    const ids = JSON.parse(run.stdout).plugins.map((p: { id: string }) => p.id);
    expect([ids[0], ids.at(-1)]).toEqual(["default", "acme"]);

    writeFileSync(path.join(gateway, "bad.yaml"), "plugins: [42]\n");
    const bad = guardgate(["plugins", "list", "--config", path.join(gateway, "bad.yaml")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.yaml: plugins\[0\]/);
  });

  it("exits 2 with the loader's message when a plugin cannot load", () => {
    const run = guardgate(["plugins", "list", "--plugin", "./throws-on-load.mjs"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/plugin "\.\/throws-on-load\.mjs" failed to load: this plugin refuses to load/);
    expect(guardgate(["plugins"]).stderr).toMatch(/use: plugins list/);
  });
});

describe("schemaType", () => {
  it.each([
    [{ type: "string" }, "string"],
    [{ type: ["string", "null"] }, "string | null"],
    [{ type: "array", items: { type: "integer" } }, "integer[]"],
    [{ enum: ["any", "all"] }, '"any" | "all"'],
    [{ oneOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] }, "string | string[]"],
    [{}, "any"],
  ])("describes %j as %s", (schema, type) => {
    expect(schemaType(schema)).toBe(type);
  });
});
