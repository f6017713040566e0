/**
 * Runs the built CLI in a child process and lists the modules it loaded, through a module hook
 * (node:module register) that notes every URL it loads in a file: what a command's start-up
 * costs is which modules it loads, which a test can assert where it must never assert a time.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/bin.js");

// The hook runs on the loader's own thread: it appends each loaded URL to the file named by an
// environment variable, synchronously, so nothing is lost when the command exits.
const HOOKS = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_MODULES_FILE, url + "\\n");
  return next(url, context);
}
`;
const REGISTER = `import { register } from "node:module";
register(new URL("./hooks.mjs", import.meta.url));
`;

/** A CLI run with the modules it loaded, as paths relative to dist/ (packages as `node_modules/NAME/...`). */
export interface LoadedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  modules: string[];
}

/** Runs `guardgate ARGS` from dist/ in a child process; resolves with its output and loaded modules. */
export function runWithLoadedModules(args: string[], env: Record<string, string> = {}): LoadedRun {
  const dir = mkdtempSync(path.join(tmpdir(), "guardgate-loaded-"));
  try {
    writeFileSync(path.join(dir, "hooks.mjs"), HOOKS);
    writeFileSync(path.join(dir, "register.mjs"), REGISTER);
    const list = path.join(dir, "loaded.txt");
    const run = spawnSync(process.execPath, ["--import", pathToFileURL(path.join(dir, "register.mjs")).href, bin, ...args], {
      encoding: "utf8",
      env: { ...process.env, ...env, LOADED_MODULES_FILE: list },
    });
    const dist = pathToFileURL(path.join(path.dirname(bin), "..")).href + "/";
    const modules = existsSync(list)
      ? readFileSync(list, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((url) => (url.startsWith(dist) ? url.slice(dist.length) : url.replace(/^.*\/node_modules\//, "node_modules/")))
      : [];
    return { code: run.status, stdout: run.stdout, stderr: run.stderr, modules };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
