/**
 * `guardgate serve`: runs the gateway over its store (the data folder). The first start with an
 * empty store prints the generated keys once; a config file seeds the store. Prints the address
 * and what was loaded; SIGHUP (or `guardgate reload`, through the admin API, for a process whose
 * id is not at hand, as under `npm start`) reads the config file again; SIGTERM or SIGINT stops
 * accepting, lets in-flight requests finish (bounded), writes every request log, then exits.
 */
import { GuardgateError } from "../core/index.js";
import { type RunningManagedServer, type SetupReport, startManagedServer } from "../server/lifecycle/start.js";
import { type CommandArgs, type Flag, parseCommand, printHelp } from "./args.js";
import { prettyLogStream } from "./pretty-log.js";
import { type StartupLines, startupLines } from "./startup-lines.js";
import type { Command } from "./command.js";
import { UsageError } from "./usage-error.js";

const ARGS = {
  usage: [
    "serve [--port 8787] [--host 127.0.0.1] [--config FILE] [--data-dir DIR] [--store URL] [--redis URL] [--executor auto] [--log-level info] [--grace-period 10000] [--wait-ready]",
  ],
  flags: {
    port: { type: "string", default: "8787", value: "N", help: "port to listen on (default 8787; 0 picks a free one)" },
    host: {
      type: "string",
      default: "127.0.0.1",
      value: "HOST",
      help: "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
    },
    config: {
      type: "string",
      value: "FILE",
      help: "JSON or YAML file with api_keys, providers, guardrails, configs, plugins, settings;\nseeds the store at every start (records are created or updated by id and slug)",
    },
    "data-dir": {
      type: "string",
      value: "DIR",
      help: "the data folder: database, secret key, initial keys (default GUARDGATE_DATA_DIR\nor ./.guardgate)",
    },
    store: {
      type: "string",
      value: "URL",
      help: "postgres://user:password@host:port/db: records and request logs in Postgres, shared\nby every instance given it (else the config file's store.url, else\nGUARDGATE_STORE_URL, else the SQLite file in the data folder)",
    },
    redis: {
      type: "string",
      value: "URL",
      help: "redis://host:port: rate limits and budgets counted in Redis, shared by every instance\ngiven it (else the config file's redis.url, else GUARDGATE_REDIS_URL)",
    },
    executor: {
      type: "string",
      default: "auto",
      value: "KIND",
      help: "how guardrail checks run: auto (default: each phase inline or in the worker pool,\nby measured cost), pool (always in worker threads) or inline",
    },
    "log-level": { type: "string", default: "info", value: "LEVEL", help: "fatal, error, warn, info (default), debug or trace" },
    "wait-ready": {
      type: "boolean",
      help: "listen only once the worker pool runs and the models the configs and policies name\nare loaded (else it listens at once and /ready answers 503 until then)",
    },
    "grace-period": {
      type: "string",
      default: "10000",
      value: "MS",
      help: "how long in-flight requests may finish after SIGTERM (default 10000)",
    },
  },
  positionals: false,
} as const satisfies CommandArgs<Record<string, Flag>>;

function integer(value: string, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, not "${value}"`);
  return n;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The start-up lines about the store: the keys of a first start and the seeding. The keys are shown
 * once, to a person at a terminal; a log gets where they are instead (credentials stay out of logs).
 */
function storeLines(report: SetupReport, location: string, lines: StartupLines): void {
  if (report.initial) {
    const { keys, file } = report.initial;
    const created = `guardgate: first start: created organization ${keys.organization_id} and workspace ${keys.workspace_id} (with the mock provider).`;
    if (lines.terminal) {
      lines.info(
        [
          created,
          `These keys are shown once; they are also in ${file} (mode 0600):`,
          `  admin key (org_admin, for /admin/v1):      ${keys.admin_key}`,
          `  API key (workspace ${keys.workspace_id}):  ${keys.api_key}`,
        ].join("\n"),
      );
    } else {
      lines.info(`${created} Its admin key and API key are in ${file} (mode 0600).`, {
        organization_id: keys.organization_id,
        workspace_id: keys.workspace_id,
        keys_file: file,
      });
    }
  }
  if (report.seeded) {
    const seeded = report.seeded;
    const parts = (["api_keys", "providers", "guardrails", "configs", "policies", "plugin_credentials"] as const).map((kind) => {
      const c = seeded[kind];
      return `${kind.replace("_", " ")}: ${c.created} created, ${c.updated} updated, ${c.unchanged} unchanged`;
    });
    lines.info(`guardgate: config file seeded into the store (${parts.join("; ")})`, { seeded });
  }
  lines.info(`guardgate: store ${location}`, { store: location });
}

const serve: Command = async (argv) => {
  const lines = startupLines();
  let server: RunningManagedServer;
  let gracePeriodMs: number;
  try {
    const { values, help } = parseCommand(ARGS, argv);
    if (help) return printHelp(ARGS, true);
    const levels = ["fatal", "error", "warn", "info", "debug", "trace"];
    if (!levels.includes(values["log-level"])) throw new UsageError(`--log-level must be one of ${levels.join(", ")}`);
    gracePeriodMs = integer(values["grace-period"], "--grace-period", 0, 3_600_000);
    const executor = values.executor;
    if (executor !== "auto" && executor !== "pool" && executor !== "inline") {
      throw new UsageError(`--executor must be auto, pool or inline, not "${executor}"`);
    }
    server = await startManagedServer({
      port: integer(values.port, "--port", 0, 65535),
      host: values.host,
      ...(values.config && { configPath: values.config }),
      ...(values["data-dir"] && { dataDir: values["data-dir"] }),
      ...(values.store && { storeUrl: values.store }),
      ...(values.redis && { redisUrl: values.redis }),
      logLevel: values["log-level"],
      // A person reads one plain line per event; anything else gets pino's JSON, as the start-up lines do.
      ...(lines.terminal && { logStream: prettyLogStream(process.stdout) }),
      gracePeriodMs,
      waitReady: values["wait-ready"] === true,
      app: { executor },
      onKeyGenerated: (file) =>
        lines.warn(
          `guardgate: generated a secret key in ${file} (mode 0600); credentials in the store are encrypted with it: keep it, or set GUARDGATE_SECRET_KEY`,
          { secret_key_file: file },
        ),
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

  // The signal handlers come before the line saying it listens: a supervisor that stops it as soon
  // as it read that line must find them.
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      lines.info(`guardgate: ${signal}: finishing in-flight requests (up to ${gracePeriodMs} ms), then stopping`, { signal });
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
    // SIGHUP reads the config file again (it would otherwise end the process); the outcome is logged.
    process.on("SIGHUP", () => {
      server.managed.reload().catch((error: unknown) => {
        if ((error as { code?: string }).code === "no_config_file")
          server.app.log.warn("SIGHUP: the gateway was started without --config: there is no file to reload");
      });
    });
  });

  const { engine } = server.app.guardgate;
  const counts = server.report.counts;
  storeLines(server.report, server.managed.store.location, lines);
  lines.info(
    `guardgate listening on ${server.url}: ${plural(counts.api_keys, "API key")}, ${plural(counts.providers, "provider")}, ` +
      `${plural(counts.guardrails, "guardrail")}, ${plural(counts.configs, "config")}, ${plural(engine.checks().length, "check")} ` +
      `from ${plural(engine.plugins().length, "plugin")}; admin API at ${server.url}/admin/v1; console at ${server.url}/console/`,
    {
      url: server.url,
      console_url: `${server.url}/console/`,
      counts,
      checks: engine.checks().length,
      plugins: engine.plugins().length,
    },
  );

  return stopped;
};

export default serve;
