/**
 * `guardgate serve` as users run it: the built command in a process of its own, on a free port,
 * with no GUARDGATE_ setting from the tests' environment unless given.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../dist/cli/bin.js");

/**
 * How long a `guardgate serve` may take to print its address before a test calls it hung: a start
 * of a second or two on an idle machine takes ten times that on a busy one. Under the test limit,
 * so the failure shows what the process printed.
 */
export const START_LIMIT_MS = 100_000;

/** A running `guardgate serve`. */
export interface ServeProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output(): string;
  errors(): string;
}

/** This process's environment without any GUARDGATE_ setting. */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GUARDGATE_")));
}

/** Starts `guardgate serve ARGS` (port 0, log level warn); resolves once it listens. */
export async function spawnServe(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--log-level", "warn", ...args], {
    ...(options.cwd && { cwd: options.cwd }),
    env: options.env ?? cleanEnv(),
  });
  options.onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = stdout.match(/guardgate listening on (http:\/\/[\d.]+:\d+)/);
      if (match?.[1]) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`guardgate serve exited with ${code} before listening: ${stderr}`));
    });
  });
  return { child, url, exited, output: () => stdout, errors: () => stderr };
}
