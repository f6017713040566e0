/**
 * Runs the CLI in this process (the sources, not the build) and captures what it writes, for
 * commands that speak to a gateway over HTTP: the gateway may then run in the test's process too.
 */
import { main } from "../../cli/main.js";

/** What a command wrote and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `guardgate ARGS` with `env` set for its duration; nothing reaches the real stdout. */
export async function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  const text = (chunk: string | Uint8Array) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += text(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += text(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
