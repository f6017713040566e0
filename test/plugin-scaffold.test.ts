/**
 * The scaffold's promise, end to end: `guardgate plugin new` writes a package that installs (from
 * the registry plus the file: guardgate), builds, passes its own tests and runs its benchmark.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { installBesideCheckout, npm } from "./support/npm.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(path.join(tmpdir(), "guardgate-scaffold-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a scaffolded plugin package", () => {
  const dir = path.join(work, "acme-checks");

  it("is written by guardgate plugin new, installs, and passes its own tests", { timeout: 300_000 }, async () => {
    const made = spawnSync(process.execPath, [path.join(root, "dist/cli/bin.js"), "plugin", "new", "@acme/acme-checks"], {
      cwd: work,
      encoding: "utf8",
    });
    expect(made.stderr).toBe("");
    expect(made.status).toBe(0);

    await installBesideCheckout(dir);
    const tested = await npm(["test"], dir);
    expect(tested.stdout).toMatch(/# pass 5\n/);
    expect(tested.stdout).toMatch(/# fail 0\n/);
  });

  it("runs its benchmark through the check-latency harness", { timeout: 120_000 }, async () => {
    const bench = await npm(["run", "bench", "--", "--quick"], dir);
    expect(bench.stdout).toMatch(/1 KB.*\n.*10 KB.*\n.*100 KB/);
    expect(bench.stdout).toContain("median µs");
  });
});
