/**
 * Writes a new plugin package from templates/plugin: a package.json whose guardgate dependency
 * points at the installation that runs the command (a `file:` path, so it installs offline),
 * tsconfig.json, an example check with its schema, node:test tests through `guardgate/testing`,
 * a latency benchmark and a README.
 */
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import validatePackageName from "validate-npm-package-name";
import { GuardgateError } from "../core/index.js";

/** What to write. */
export interface ScaffoldOptions {
  /** npm package name, e.g. `@acme/guardgate-checks`. */
  name: string;
  /** Target folder; defaults to the name's last segment in the current folder. */
  dir?: string;
  /** Plugin id; derived from the name when absent. */
  id?: string;
  /** Version spec of the guardgate devDependency; `file:<this installation>` by default. */
  guardgate?: string;
}

/** What was written. */
export interface ScaffoldResult {
  dir: string;
  pluginId: string;
  files: string[];
  packageJson: Record<string, unknown>;
}

const PLUGIN_ID = /^[A-Za-z][\w-]*$/;

/** Root folder of the guardgate installation this module belongs to. */
export function guardgateRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && existsSync(path.join(dir, "templates", "plugin"))) return realpathSync(dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new GuardgateError("installation_not_found", "cannot find the guardgate installation folder");
    dir = parent;
  }
}

/**
 * The plugin id a package name suggests: its last segment without a `guardgate-plugin-` or
 * `guardgate-` prefix, made into a valid id (`@acme/guardgate-checks` → `checks`).
 */
export function pluginIdFor(name: string): string {
  const last = name.split("/").pop() ?? name;
  const bare = last.replace(/^guardgate-(?:plugin-)?/, "") || last;
  const cleaned = bare.replace(/[^\w-]+/g, "-").replace(/^[^A-Za-z]+/, "");
  return cleaned || "custom";
}

/** Whether a version spec is a range of registry versions (and so also fits the peer dependency). */
function isRange(spec: string): boolean {
  return /^[\^~<>=*\dxX]/.test(spec.trim()) || spec.trim() === "latest";
}

async function templateFiles(root: string, dir = ""): Promise<string[]> {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await templateFiles(root, relative)));
    else files.push(relative);
  }
  return files.sort();
}

/** Writes the package; refuses a folder that exists and is not empty. */
export async function scaffoldPlugin(options: ScaffoldOptions, cwd = process.cwd()): Promise<ScaffoldResult> {
  const { name } = options;
  const valid = validatePackageName(name);
  if (!valid.validForNewPackages) {
    const problems = [...(valid.errors ?? []), ...(valid.warnings ?? [])].join("; ");
    throw new GuardgateError("invalid_package_name", `"${name}" is not a valid npm package name: ${problems}`);
  }
  const pluginId = options.id ?? pluginIdFor(name);
  if (!PLUGIN_ID.test(pluginId)) {
    throw new GuardgateError(
      "invalid_plugin_id",
      `"${pluginId}" is not a valid plugin id: a letter, then letters, digits, "_" or "-"`,
    );
  }
  if (pluginId === "default") throw new GuardgateError("invalid_plugin_id", `"default" is the id of guardgate's built-in plugin`);
  const dir = path.resolve(cwd, options.dir ?? (name.split("/").pop() as string));
  if (existsSync(dir) && (await readdir(dir)).length > 0) {
    throw new GuardgateError("target_not_empty", `${dir} already exists and is not empty`);
  }

  const root = guardgateRoot();
  const own = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
    version: string;
    engines?: { node?: string };
    devDependencies?: Record<string, string>;
  };
  const devSpec = options.guardgate ?? `file:${root}`;
  const packageJson = {
    name,
    version: "0.1.0",
    description: "Custom checks for guardgate.",
    type: "module",
    keywords: ["guardgate", "guardgate-plugin"],
    exports: { ".": { types: "./dist/src/index.d.ts", default: "./dist/src/index.js" } },
    files: ["dist/src", "README.md"],
    // The plugin runs inside guardgate, so it runs where guardgate does.
    engines: { node: own.engines?.node ?? ">=20.19.0" },
    scripts: {
      build: "tsc -p tsconfig.json",
      test: "npm run build && node --test dist/test/",
      bench: "npm run build && node dist/bench/latency.js",
      prepack: "npm run build",
    },
    // guardgate is the host: the gateway's own copy is used when the plugin runs, and the
    // development copy installs with the devDependencies.
    peerDependencies: { guardgate: isRange(devSpec) ? devSpec : `^${own.version}` },
    devDependencies: {
      "@types/node": own.devDependencies?.["@types/node"] ?? "^20.19.0",
      guardgate: devSpec,
      typescript: own.devDependencies?.typescript ?? "~5.9.0",
    },
    // A file: guardgate needs no install script: the installation it points at is built.
    ...(devSpec.startsWith("file:") && { allowScripts: { [devSpec]: false } }),
  };

  const tarball = `${name.replace(/^@/, "").replace("/", "-")}-0.1.0.tgz`;
  const fill = (text: string) =>
    text.replaceAll("__PACKAGE_NAME__", name).replaceAll("__PLUGIN_ID__", pluginId).replaceAll("__TARBALL__", tarball);

  const templates = path.join(root, "templates", "plugin");
  const written: string[] = [];
  await mkdir(dir, { recursive: true });
  for (const file of await templateFiles(templates)) {
    // npm leaves .gitignore files out of packages, so the template keeps it without the dot.
    const target = file === "gitignore" ? ".gitignore" : file;
    await mkdir(path.dirname(path.join(dir, target)), { recursive: true });
    await writeFile(path.join(dir, target), fill(await readFile(path.join(templates, file), "utf8")));
    written.push(target);
  }
  await writeFile(path.join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
  written.push("package.json");
  return { dir, pluginId, files: written.sort(), packageJson };
}
