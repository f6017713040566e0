/**
 * `guardgate serve`: runs the gateway. Prints the address and what was loaded; SIGTERM or SIGINT
 * stops accepting, lets in-flight requests finish (bounded), then exits.
 */
import { parseArgs } from "node:util";
import { GuardgateError } from "../core/errors.js";
import { type RunningServer, startServer } from "../server/serve.js";
import type { Command } from "./main.js";

const HELP = `usage: guardgate serve [--port 8787] [--host 127.0.0.1] [--config FILE] [--log-level info] [--grace-period 10000]

  --port N            port to listen on (default 8787; 0 picks a free one)
  --host HOST         address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  --config FILE       JSON or YAML file with api_keys, providers, guardrails, configs, plugins, settings
  --log-level LEVEL   fatal, error, warn, info (default), debug or trace
  --grace-period MS   how long in-flight requests may finish after SIGTERM (default 10000)`;

class UsageError extends Error {}

function integer(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, not "${value}"`);
  return n;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

const serve: Command = async (argv) => {
  let server: RunningServer;
  let gracePeriodMs: number;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "8787" },
        host: { type: "string", default: "127.0.0.1" },
        config: { type: "string" },
        "log-level": { type: "string", default: "info" },
        "grace-period": { type: "string", default: "10000" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    const levels = ["fatal", "error", "warn", "info", "debug", "trace"];
    if (!levels.includes(values["log-level"])) throw new UsageError(`--log-level must be one of ${levels.join(", ")}`);
    gracePeriodMs = integer(values["grace-period"], "--grace-period", 0, 3_600_000);
    server = await startServer({
      port: integer(values.port, "--port", 0, 65535),
      host: values.host,
      ...(values.config && { configPath: values.config }),
      logLevel: values["log-level"],
      gracePeriodMs,
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (
      error instanceof UsageError ||
      error instanceof GuardgateError ||
      code?.startsWith("ERR_PARSE_ARGS") ||
      code === "EADDRINUSE"
    ) {
      process.stderr.write(`guardgate serve: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }

  const { loaded, engine } = server.app.guardgate;
  process.stdout.write(
    `guardgate listening on ${server.url}: ${plural(loaded.apiKeys, "API key")}, ${plural(loaded.providers, "provider")}, ` +
      `${plural(loaded.guardrails, "guardrail")}, ${plural(loaded.configs, "config")}, ${plural(engine.checks().length, "check")} ` +
      `from ${plural(engine.plugins().length, "plugin")}\n`,
  );
  if (loaded.apiKeys === 0) {
    process.stderr.write(
      "guardgate serve: no API keys are configured, so every request will be refused (401); add api_keys to the config file\n",
    );
  }

  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      process.stdout.write(`guardgate: ${signal}: finishing in-flight requests (up to ${gracePeriodMs} ms), then stopping\n`);
      server.stop().then(
        () => resolve(0),
        (error: unknown) => {
          process.stderr.write(`guardgate serve: stopping failed: ${(error as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
};

export default serve;
