/**
 * Runs npm for tests that build and install packages: without the npm_* variables of the `npm test`
 * that started the suite (they would point the inner npm at this package), preferring the local
 * cache so a warm machine installs without the network.
 */
import { execFile } from "node:child_process";

/** What a command printed. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
}

/** This process's environment without the npm_* variables, and npm's notices off. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  return { ...env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
}

/** Runs `npm ...args` in `cwd` (with `env` added); rejects with its output when it fails. */
export function npm(args: string[], cwd: string, timeoutMs = 240_000, env: NodeJS.ProcessEnv = {}): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const options = { cwd, env: { ...cleanEnv(), ...env }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 };
    execFile("npm", args, options, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm ${args.join(" ")} failed in ${cwd}: ${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/**
 * `npm install` in a folder whose package.json has guardgate as `file:` this checkout, which `npm
 * test` has built. Without --ignore-scripts npm runs the checkout's `prepare`, a whole build that
 * rewrites dist/ while the test files running beside this one import from it: the `allowScripts`
 * entry denying it is only advisory in npm 11. The folders' other packages have no install scripts.
 */
export function installBesideCheckout(cwd: string): Promise<CommandOutput> {
  return npm(["install", "--prefer-offline", "--ignore-scripts"], cwd);
}
