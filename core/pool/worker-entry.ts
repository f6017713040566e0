/**
 * Finds the compiled worker module. Workers run plain JavaScript, so the pool always starts
 * dist/core/pool/worker.js, found from the package root: the same file whether the caller runs
 * from source (the test runner) or from dist (the CLI, the server, an installed package).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { GuardgateError } from "../errors.js";

const WORKER_PATH = ["dist", "core", "pool", "worker.js"];

/** The package root: the nearest folder above this module holding a package.json. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new GuardgateError("pool_worker_missing", "cannot find guardgate's package.json above the pool module");
    dir = parent;
  }
  return dir;
}

/** Path of the worker module; throws when the package has not been built. */
export function workerEntry(): string {
  const file = path.join(packageRoot(), ...WORKER_PATH);
  if (!existsSync(file)) {
    throw new GuardgateError(
      "pool_worker_missing",
      `the pool's worker module ${file} does not exist: build guardgate first (npm run build)`,
    );
  }
  return file;
}
