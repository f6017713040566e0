/**
 * Loads plugins given as objects, package names or paths (a module file or a package folder).
 * A plugin that fails to load stops loading with a message naming it; it never half-loads.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { resolve as resolveSpecifier } from "import-meta-resolve";
import { PluginError } from "./errors.js";
import type { PluginDefinition } from "./plugin-api.js";

/** A plugin object, a package name, or a path to a module file or package folder. */
export type PluginSpec = PluginDefinition | string;

/** A loaded plugin and where it came from (for messages and for workers to load it again). */
export interface LoadedPlugin {
  plugin: unknown;
  source: string;
  /** A specifier a worker thread can import, when the plugin came from a module. */
  moduleUrl?: string;
}

function isPath(spec: string): boolean {
  return spec.startsWith(".") || spec.startsWith("/") || path.isAbsolute(spec) || spec.startsWith("file:");
}

/** The entry module of a package folder, from its package.json `exports` or `main`. */
async function packageEntry(folder: string): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(folder, "package.json"), "utf8")) as {
    exports?: unknown;
    main?: string;
  };
  let entry: unknown = manifest.exports;
  if (entry && typeof entry === "object" && !Array.isArray(entry) && "." in entry)
    entry = (entry as Record<string, unknown>)["."];
  while (entry && typeof entry === "object" && !Array.isArray(entry)) {
    const conditions = entry as Record<string, unknown>;
    entry = conditions.import ?? conditions.node ?? conditions.default;
  }
  return path.join(folder, typeof entry === "string" ? entry : (manifest.main ?? "index.js"));
}

/** Finds the module URL for a plugin spec, resolving names from `baseDir`. */
export async function resolvePluginModule(spec: string, baseDir: string): Promise<string> {
  if (!isPath(spec)) return resolveSpecifier(spec, pathToFileURL(path.join(baseDir, "noop.js")).href);
  const target = spec.startsWith("file:") ? new URL(spec).pathname : path.resolve(baseDir, spec);
  const info = await stat(target);
  return pathToFileURL(info.isDirectory() ? await packageEntry(target) : target).href;
}

/** Imports a plugin module and returns its plugin (the default export). */
export async function importPlugin(moduleUrl: string): Promise<unknown> {
  const module = (await import(moduleUrl)) as { default?: unknown };
  return module.default;
}

/** Where the registry and messages say a built-in plugin came from. */
export const BUILTIN_SOURCE = "guardgate (built in)";

/** Loads a plugin shipped with guardgate from its module URL. */
export async function loadBuiltinPlugin(moduleUrl: string): Promise<LoadedPlugin> {
  try {
    return { plugin: await importPlugin(moduleUrl), source: BUILTIN_SOURCE, moduleUrl };
  } catch (error) {
    throw new PluginError(`built-in plugin ${moduleUrl} failed to load: ${(error as Error).message}`, "plugin_load_failed", {
      cause: error,
    });
  }
}

/** Loads one plugin spec. */
export async function loadPlugin(spec: PluginSpec, baseDir = process.cwd()): Promise<LoadedPlugin> {
  if (typeof spec !== "string") return { plugin: spec, source: `plugin object "${(spec as { id?: unknown })?.id}"` };
  let moduleUrl: string;
  try {
    moduleUrl = await resolvePluginModule(spec, baseDir);
  } catch (error) {
    throw new PluginError(`plugin "${spec}" cannot be found from ${baseDir}: ${(error as Error).message}`, "plugin_not_found", {
      cause: error,
    });
  }
  try {
    return { plugin: await importPlugin(moduleUrl), source: `"${spec}"`, moduleUrl };
  } catch (error) {
    throw new PluginError(`plugin "${spec}" failed to load: ${(error as Error).message}`, "plugin_load_failed", { cause: error });
  }
}
