/**
 * The package as it is installed today: `npm pack` of this checkout, `npm install
 * ./guardgate-<version>.tgz` in a new folder, then `npx guardgate serve` in that folder, a process
 * of its own on a free port, answering /ready.
 *
 * What keeps it short without faking the install. npm unpacks the tarball, places its dependencies
 * and runs their install scripts as for a user. The folder starts with a lockfile holding this
 * checkout's production packages, so npm installs exactly the versions `npm ci` put in its cache
 * (`--prefer-offline`: no tarball is downloaded again) rather than resolving every range against
 * the registry's full metadata, which `npm ci` never fetched, and perhaps picking releases newer than
 * the ones tested here. The two native addons would otherwise compile from source for many minutes;
 * each is handed this checkout's own build (same versions, same Node.js, same platform) through the
 * way its install script takes a prebuilt binary: better-sqlite3's prebuild-install looks in
 * `npm_config_better_sqlite3_local_prebuilds` for the release asset it would download, and re2's
 * install-from-cache reads `RE2_DOWNLOAD_MIRROR` (a folder works as well as a host), then runs
 * re2's own verify-build. The pack skips `prepare` (the build): `npm test` has built dist/ (or found it
 * current), and the tarball is what that build holds.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/free-port.js";
import { cleanEnv, npm } from "./support/npm.js";

const root = path.join(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { name: string; version: string };
const work = mkdtempSync(path.join(tmpdir(), "guardgate-package-install-"));
const app = path.join(work, "app");
const prebuilds = path.join(work, "prebuilds");

afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Packed {
  filename: string;
  files: Array<{ path: string; mode: number }>;
}

/** The folder of a dependency of this checkout, as its own code resolves it. */
function dependencyDir(name: string): string {
  return path.dirname(createRequire(path.join(root, "package.json")).resolve(`${name}/package.json`));
}

/** `linux`, or `linux-musl` where the C library is not glibc: the platform the addons' installers name. */
function libcSuffix(): string {
  const header = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header;
  return process.platform === "linux" && !header.glibcVersionRuntime ? "musl" : "";
}

/** Runs a command to its end; resolves with its exit code and output. */
async function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += String(d)));
  child.stderr.on("data", (d) => (output += String(d)));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output };
}

/** The new folder's package.json, and a lockfile of this checkout's production packages. */
function seedLockfile(): void {
  const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  const packages: Record<string, unknown> = { "": { name: "app" } };
  for (const [where, entry] of Object.entries(lock.packages)) if (where !== "" && !entry.dev) packages[where] = entry;
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
  writeFileSync(
    path.join(app, "package-lock.json"),
    JSON.stringify({ name: "app", lockfileVersion: 3, requires: true, packages }),
  );
}

/**
 * This checkout's builds of re2 and better-sqlite3, laid out as each installer looks for them:
 * re2 as `<platform>-<arch>-<abi>.gz`, better-sqlite3 as its GitHub release asset, a tarball
 * holding `build/Release/better_sqlite3.node`.
 */
async function stagePrebuilds(): Promise<void> {
  mkdirSync(prebuilds);
  const abi = process.versions.modules;
  const libc = libcSuffix();
  const re2 = path.join(dependencyDir("re2"), "build", "Release", "re2.node");
  const re2Platform = libc ? `${process.platform}-${libc}` : process.platform;
  writeFileSync(path.join(prebuilds, `${re2Platform}-${process.arch}-${abi}.gz`), gzipSync(readFileSync(re2)));

  const sqlite = dependencyDir("better-sqlite3");
  const version = (JSON.parse(readFileSync(path.join(sqlite, "package.json"), "utf8")) as { version: string }).version;
  const asset = `better-sqlite3-v${version}-node-v${abi}-${process.platform}${libc}-${process.arch}.tar.gz`;
  const tar = await run("tar", ["-czf", path.join(prebuilds, asset), "build/Release/better_sqlite3.node"], sqlite);
  expect(tar.code, tar.output).toBe(0);
}

describe("the package installed from its tarball", () => {
  let packed: Packed;

  beforeAll(async () => {
    const out = await npm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], root);
    packed = (JSON.parse(out.stdout) as Packed[])[0] as Packed;
  }, 120_000);

  it("is named for its version and holds the build, the console, the weights and the templates", () => {
    expect(packed.filename).toBe(`${manifest.name}-${manifest.version}.tgz`);
    const files = packed.files.map((f) => f.path);
    for (const file of [
      "package.json",
      "README.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli/bin.js",
      "dist/core/pool/worker.js",
      "dist/console/index.html",
      "dist/plugins/model/weights/prompt-injection.ggmw",
      "dist/plugins/model/weights/gibberish.ggmw",
      "templates/plugin/src/index.ts",
      "templates/plugin/tsconfig.json",
    ])
      expect(files).toContain(file);
    expect(files.some((f) => f.startsWith("dist/console/assets/") && f.endsWith(".js"))).toBe(true);
    const bin = packed.files.find((f) => f.path === "dist/cli/bin.js");
    expect((bin?.mode ?? 0) & 0o111).not.toBe(0);
  });

  it("holds no sources, tests, benchmarks, build tooling, source maps or local state", () => {
    const files = packed.files.map((f) => f.path);
    // templates/ holds the sources a new plugin starts from: they are meant to be there.
    const unwanted = files.filter(
      (f) =>
        (!f.startsWith("templates/") && /\.tsx?$/.test(f) && !f.endsWith(".d.ts")) ||
        (!f.startsWith("templates/") && /\.test\.[jt]s$/.test(f)) ||
        /^dist\/(test|bench|scripts)\//.test(f) ||
        f.endsWith(".map") ||
        /(^|\/)\.(env|npmrc|guardgate|build-inputs)(\/|$)/.test(f) ||
        /(^|\/)(secret\.key|initial-keys\.json|guardgate\.db)$/.test(f) ||
        /^(core|server|cli|plugins|console|scripts|test|bench|docs|examples|deploy)\//.test(f),
    );
    expect(unwanted).toEqual([]);
  });

  it(
    "installs in a new folder from the npm cache, compiling nothing, without sources or dev dependencies",
    { timeout: 600_000 },
    async () => {
      await stagePrebuilds();
      mkdirSync(app);
      seedLockfile();
      await npm(["install", path.join(work, packed.filename), "--prefer-offline", "--foreground-scripts"], app, 600_000, {
        // guardgate runs its models on the CPU: the CUDA libraries this installer fetches from
        // NuGet on linux-x64 are not wanted (and CI cannot reach NuGet).
        ONNXRUNTIME_NODE_INSTALL: "skip",
        npm_config_better_sqlite3_local_prebuilds: prebuilds,
        RE2_DOWNLOAD_MIRROR: prebuilds,
        RE2_DOWNLOAD_SKIP_PATH: "1",
        RE2_DOWNLOAD_SKIP_VER: "1",
      });
      const modules = path.join(app, "node_modules");
      expect(JSON.parse(readFileSync(path.join(modules, "guardgate", "package.json"), "utf8")).version).toBe(manifest.version);
      // `prepare` (the TypeScript build) does not run for a tarball: no compiler, no sources.
      for (const dev of ["typescript", "vitest", "vite", "eslint", "preact"])
        expect(existsSync(path.join(modules, dev))).toBe(false);
      expect(existsSync(path.join(modules, "guardgate", "core"))).toBe(false);
      // Linked as a folder instead (a plugin's `file:` dependency), it has its `prepare` run: with no
      // sources there, that builds nothing and succeeds.
      await npm(["run", "prepare"], path.join(modules, "guardgate"));
      expect(existsSync(path.join(modules, "guardgate", "dist", ".build-inputs"))).toBe(false);
      // Both addons came from the staged builds: byte for byte, with nothing compiled beside them.
      for (const [name, file] of [
        ["re2", "re2.node"],
        ["better-sqlite3", "better_sqlite3.node"],
      ] as const) {
        const release = path.join(modules, name, "build", "Release");
        expect(readdirSync(release)).toEqual([file]);
        expect(
          readFileSync(path.join(release, file)).equals(readFileSync(path.join(dependencyDir(name), "build", "Release", file))),
        ).toBe(true);
      }
    },
  );

  it("runs `npx guardgate serve` there, a process of its own that answers /ready", { timeout: 120_000 }, async () => {
    const version = await run("npx", ["--offline", "guardgate", "--version"], app);
    expect(version.code, version.output).toBe(0);
    expect(version.output.trim()).toBe(manifest.version);

    const port = await freePort();
    const env = Object.fromEntries(Object.entries(cleanEnv()).filter(([key]) => !key.startsWith("GUARDGATE_")));
    // A process group of its own, so the stop reaches the server under npx's wrapper too.
    const child: ChildProcess = spawn("npx", ["--offline", "guardgate", "serve", "--port", String(port), "--log-level", "warn"], {
      cwd: app,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (d) => (output += String(d)));
    child.stderr?.on("data", (d) => (output += String(d)));
    const exited = once(child, "exit");
    try {
      let status = 0;
      for (let attempt = 0; attempt < 600 && status !== 200 && child.exitCode === null; attempt++) {
        status = await fetch(`http://127.0.0.1:${port}/ready`).then(
          (r) => r.status,
          () => 0,
        );
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status, output).toBe(200);
      // It serves from the installed package, with its store in the folder it was started in.
      expect(existsSync(path.join(app, ".guardgate"))).toBe(true);
      const console = await fetch(`http://127.0.0.1:${port}/console/`);
      expect(console.status).toBe(200);
      expect(await console.text()).toContain("<html");
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await exited;
    }
  });
});
