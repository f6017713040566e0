/**
 * Finds compiled worker modules. Workers run plain JavaScript, so the pool always starts
 * dist/core/pool/worker.js (and the request log its writer thread, see compiledModule), found
 * from the package root: the same file whether the caller runs from source (the test runner) or
 * from dist (the CLI, the server, an installed package).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { GuardgateError } from "../errors.js";

const WORKER_PATH = ["dist", "core", "pool", "worker.js"];

/** The package root: the nearest folder above this module holding a package.json. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new GuardgateError("pool_worker_missing", "cannot find guardgate's package.json above the pool module");
    dir = parent;
  }
  return dir;
}

/**
 * Path of a compiled module under the package root, such as a worker thread's entry; throws
 * `code` when the package has not been built.
 */
export function compiledModule(segments: readonly string[], what: string, code: string): string {
  const file = path.join(packageRoot(), ...segments);
  if (!existsSync(file)) {
    throw new GuardgateError(code, `${what} ${file} does not exist: build guardgate first (npm run build)`);
  }
  return file;
}

/** Path of the pool's worker module; throws when the package has not been built. */
export function workerEntry(): string {
  return compiledModule(WORKER_PATH, "the pool's worker module", "pool_worker_missing");
}

/**
 * The module URL a worker imports for a built-in plugin. Run from source, a built-in's URL names
 * the .js file a build makes beside its .ts source, which does not exist there: the worker gets
 * the compiled file under dist/ instead. Run from dist, the URL is already the compiled file.
 */
export function compiledModuleUrl(moduleUrl: string): string {
  const file = fileURLToPath(moduleUrl);
  if (existsSync(file)) return moduleUrl;
  const inPackage = path.relative(packageRoot(), file);
  if (inPackage.startsWith("..") || path.isAbsolute(inPackage)) return moduleUrl;
  return pathToFileURL(compiledModule(["dist", ...inPackage.split(path.sep)], "the built-in plugin module", "plugin_not_built"))
    .href;
}
