/**
 * Running the gateway as a process: load the config file, build the app, listen, and stop
 * gracefully — stop accepting, let in-flight requests finish within a grace period, then drop what
 * is left.
 */
import type { FastifyInstance } from "fastify";
import { type AppOptions, buildApp } from "../app.js";
import { loadGatewayFile } from "../sources/config-file.js";
import { loadUsageEstimation } from "../request/usage.js";

/** Options of `startServer`. */
export interface ServeOptions {
  port: number;
  host: string;
  /** Path of a JSON or YAML config file. */
  configPath?: string;
  logLevel?: string;
  /** Where the log lines go; stdout as pino's JSON by default. */
  logStream?: NodeJS.WritableStream;
  /** How long in-flight requests may take to finish once a stop began; default 10 s. */
  gracePeriodMs?: number;
  /** Anything else `buildApp` takes. */
  app?: AppOptions;
  /** Runs on the built app before it listens (the management plane registers its routes here). */
  setup?: (app: FastifyInstance) => Promise<void>;
  /**
   * Starts the worker pool and loads the models the gateway will need; `/ready` answers 503 until
   * it is done. Runs once the gateway listens, or before with `waitReady`. It reports its own
   * failures (the instance then stays unready); a rejection stops a `waitReady` start.
   */
  warmUp?: (app: FastifyInstance) => Promise<void>;
  /** Listen only once `warmUp` is done (`guardgate serve --wait-ready`). */
  waitReady?: boolean;
}

/** A running gateway. */
export interface RunningServer {
  app: FastifyInstance;
  /** `http://host:port` */
  url: string;
  /** Stops gracefully; resolves when every connection is closed. */
  stop(): Promise<void>;
}

/** Loads, builds and listens. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const loaded = options.configPath ? await loadGatewayFile(options.configPath) : undefined;
  const app = await buildApp({
    ...(loaded && { file: loaded.file, baseDir: loaded.dir }),
    logger: { level: options.logLevel ?? "info", ...(options.logStream && { stream: options.logStream }) },
    ...options.app,
  });
  try {
    await options.setup?.(app);
  } catch (error) {
    await app.close();
    throw error;
  }
  // Loaded before the first request rather than in the middle of one (usage.ts).
  await loadUsageEstimation();
  if (options.waitReady && options.warmUp) {
    try {
      await options.warmUp(app);
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  const address = await app.listen({ port: options.port, host: options.host });
  // Without --wait-ready the warm-up runs while /health answers and /ready says 503.
  if (!options.waitReady) void options.warmUp?.(app).catch(() => {});
  let stopping: Promise<void> | undefined;
  return {
    app,
    url: address,
    stop() {
      stopping ??= (async () => {
        const grace = options.gracePeriodMs ?? 10_000;
        const timer = setTimeout(() => {
          app.log.warn(`grace period of ${grace} ms over: closing the connections still open`);
          app.guardgate.closeConnections();
        }, grace);
        try {
          await app.close();
        } finally {
          clearTimeout(timer);
        }
      })();
      return stopping;
    },
  };
}
