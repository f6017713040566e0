/**
 * The gateway over the store: the store's cached sources, request log sink and request gate in
 * place of the in-memory ones, then — on the built app, before it listens — bootstrapping of an
 * empty store, seeding from the config file, the admin API, routing-cache invalidation on change,
 * and a stop that writes every request log before the store closes.
 */
import path from "node:path";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import { type Executor, PoolExecutor } from "../../core/index.js";
import { adminPlugin } from "../admin/plugin.js";
import type { ReloadReport, SeedReport } from "../admin/reload-report.js";
import { consolePlugin } from "../console/plugin.js";
import type { AppOptions } from "../app.js";
import { type GatewayFile, loadGatewayFile } from "../sources/config-file.js";
import { type Counters, MemoryCounters } from "../limits/counters.js";
import { LimitEnforcer } from "../limits/enforcer.js";
import { connectRedis } from "../limits/redis-connection.js";
import { RedisCounters } from "../limits/redis-counters.js";
import type { BatchWriterOptions } from "../logs/batch-writer.js";
import { LogWriterThread } from "../logs/threaded-writer.js";
import { StoreLogSink } from "../logs/store-sink.js";
import { FeedbackService } from "../feedback/feedback.js";
import { FeedbackRate } from "../feedback/feedback-rate.js";
import { feedbackCounter } from "../feedback/metrics.js";
import { feedbackRoutes } from "../feedback/routes.js";
import { GatewayMetrics } from "../metrics/gateway-metrics.js";
import { MetricsLogSink } from "../metrics/metrics-sink.js";
import { metricsRoute } from "../metrics/routes.js";
import { RedisResponseCache } from "../request/redis-response-cache.js";
import { validateGatewayConfig } from "../routing/schema.js";
import { isKnownProvider } from "../providers/catalog.js";
import { checkProviderOptions } from "../providers/options.js";
import { type ReadinessProbe, readyRoute, WARM_UP_PROBE } from "../routes/ready.js";
import { type RunningServer, type ServeOptions, startServer } from "./serve.js";
import { DATABASE_FILE } from "../store/data-dir.js";
import { ManagementError } from "../store/errors.js";
import { openStore } from "../store/open.js";
import { isBusy } from "../store/sqlite/lock-wait.js";
import type { Store } from "../store/repository.js";
import { DEFAULT_CUSTOM_HOSTS } from "../upstream/client.js";
import { bootstrap, type InitialKeys } from "./bootstrap.js";
import { GatewaySources } from "../management/gateway-sources.js";
import { Management } from "../management/index.js";
import { StoreMcpServerSource, StoreToolPins } from "../management/mcp-sources.js";
import { StoreGate } from "../management/store-gate.js";
import { seedFromFile } from "./seed.js";
import { FileRecordIndex } from "./file-records.js";
import { ConfigReloader, describeReload } from "./reload.js";
import { warmUp, type WarmUpReport } from "./warm-up.js";

/** Options of the managed gateway. */
export interface ManagedOptions {
  /** `--data-dir`; else `GUARDGATE_DATA_DIR`, else `./.guardgate`. */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The config file to seed the store from (and whose plugins and settings the app uses). */
  file?: GatewayFile;
  /** Told once when a secret key was generated, with its file. */
  onKeyGenerated?: (file: string) => void;
  /** Rate-limit and budget counters; in memory by default. */
  counters?: Counters;
  /** Batching of the request log writer. */
  logWriter?: Omit<BatchWriterOptions<never>, "write" | "onError">;
  /** How often to notice another process's writes to the store, ms. */
  externalChangePollMs?: number;
  /** A `postgres://` store URL; wins over the file's `store.url`. */
  storeUrl?: string;
  /** A `redis://` URL for the limit counters; wins over the file's `redis.url` and `GUARDGATE_REDIS_URL`. */
  redisUrl?: string;
  /** Where `file` was read from: `reload` reads it again. */
  configPath?: string;
}

/** What setting the app up did. */
export interface SetupReport {
  /** The keys made on the first start (printed once), and the file they were written to. */
  initial?: { keys: InitialKeys; file: string };
  seeded?: SeedReport;
  /** What the store holds once set up, for the start-up line. */
  counts: StoreCounts;
}

/** Records in the store, over every organization. */
export interface StoreCounts {
  organizations: number;
  workspaces: number;
  api_keys: number;
  providers: number;
  guardrails: number;
  configs: number;
}

/** Counts the store's records (at start-up: a handful of queries). */
export async function storeCounts(store: Store): Promise<StoreCounts> {
  const counts: StoreCounts = { organizations: 0, workspaces: 0, api_keys: 0, providers: 0, guardrails: 0, configs: 0 };
  for (const organization of await store.organizations.list()) {
    counts.organizations++;
    counts.api_keys += (await store.apiKeys.list({ organizationId: organization.id })).length;
    for (const workspace of await store.workspaces.list(organization.id)) {
      counts.workspaces++;
      counts.providers += (await store.providers.list({ workspaceId: workspace.id })).length;
      counts.guardrails += (await store.guardrails.list(workspace.id)).length;
      counts.configs += (await store.configs.list(workspace.id)).length;
    }
  }
  return counts;
}

/** A gateway over the store, before and after its app is built. */
export interface ManagedGateway {
  store: Store;
  dataDir: string;
  /** The Redis client of the limit counters, when limits are counted in Redis. */
  redis?: Redis;
  management: Management;
  sources: GatewaySources;
  sink: StoreLogSink;
  /** Options for `buildApp`: the store's sources, sink and request gate, and the file's plugins and settings. */
  appOptions: AppOptions;
  /** Call on the built app before it listens. */
  setup(app: FastifyInstance): Promise<SetupReport>;
  /**
   * Starts the set-up app's worker pool and loads the models its configs and policies name;
   * `/ready` answers 503 until it is done. Logs what it loaded; rejects when the pool cannot start.
   */
  warm(app: FastifyInstance): Promise<void>;
  /**
   * Reads the config file again and applies it (reload.ts); logs what changed, or why it was
   * refused. Rejects with `reload_refused` (the old records kept) or `no_config_file`.
   */
  reload(): Promise<ReloadReport>;
  /** The organization the config file seeds, once set up: its admins may reload it. */
  readonly fileOrganization: string | undefined;
  /** What the last warm-up did, once it is done. */
  readonly warmedUp: WarmUpReport | undefined;
  /** Closes the store when the app was never built. */
  abandon(): Promise<void>;
}

/** What `GET /ready` asks: the warm-up, the store, Redis when limits count there, the worker pool once started. */
function readinessProbes(store: Store, app: FastifyInstance, redis: Redis | undefined, warmed: () => boolean): ReadinessProbe[] {
  const probes: ReadinessProbe[] = [
    {
      name: WARM_UP_PROBE,
      check: async () => {
        if (!warmed()) throw new Error("the worker pool is starting and the models are loading");
      },
    },
    { name: "store", check: () => store.meta.get("records_version") },
  ];
  if (redis) probes.push({ name: "redis", check: () => redis.ping() });
  probes.push({
    name: "pool",
    check: async () => {
      const executor = app.guardgate.engine.executor;
      if (executor instanceof PoolExecutor) await executor.ping();
    },
  });
  return probes;
}

/** The store settings of the command line and the file, the command line's first. */
function storeOptions(options: ManagedOptions): { url?: string; poolSize?: number; logRetentionDays?: number } {
  const fileStore = options.file?.store;
  const url = options.storeUrl ?? fileStore?.url;
  return {
    ...(url !== undefined && { url }),
    ...(fileStore?.pool_size !== undefined && { poolSize: fileStore.pool_size }),
    ...(fileStore?.log_retention_days !== undefined && { logRetentionDays: fileStore.log_retention_days }),
  };
}

/** Opens the store and prepares everything the app needs from it. */
export async function prepareManagedGateway(options: ManagedOptions = {}): Promise<ManagedGateway> {
  const opened = await openStore({
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
    ...(options.env && { env: options.env }),
    ...(options.onKeyGenerated && { onKeyGenerated: options.onKeyGenerated }),
    ...(options.externalChangePollMs !== undefined && { externalChangePollMs: options.externalChangePollMs }),
    ...storeOptions(options),
  });
  const { store, box, dataDir } = opened;
  let app: FastifyInstance | undefined;
  const management = new Management({
    store,
    box,
    // The engine is the app's (with the file's plugins), built after this service.
    registry: () => {
      if (!app) throw new Error("the management service was used before the gateway app was built");
      return app.guardgate.engine.registry;
    },
    validateGatewayKeys: (config) => validateGatewayConfig(config, ""),
    isProviderKind: isKnownProvider,
    checkProviderOptions,
    // A workspace admin's integration is held to the policy for hosts clients choose.
    workspaceAddressPolicy: {
      allowLoopback: options.file?.settings?.custom_hosts?.allow_loopback ?? DEFAULT_CUSTOM_HOSTS.allowLoopback,
      allowPrivate: options.file?.settings?.custom_hosts?.allow_private ?? DEFAULT_CUSTOM_HOSTS.allowPrivate,
    },
  });
  const sources = new GatewaySources(management.context);
  const file = options.file ?? {};
  let logError: (error: unknown, size: number) => void = () => {};
  // SQLite's transactions would hold the event loop: a thread writes them. Postgres's are I/O.
  const logThread = store.kind === "sqlite" ? new LogWriterThread(path.join(dataDir, DATABASE_FILE)) : undefined;
  const sink = new StoreLogSink({
    store,
    sources,
    insert: (batch) => (logThread ? logThread.insert(batch) : store.logs.insert(batch)),
    logBodiesDefault: file.settings?.log_bodies ?? false,
    ...options.logWriter,
    onError: (error, size) => logError(error, size),
  });
  const env = options.env ?? process.env;
  const redisUrl = options.redisUrl ?? file.redis?.url ?? (env.GUARDGATE_REDIS_URL || undefined);
  const redis = !options.counters && redisUrl ? connectRedis({ url: redisUrl }) : undefined;
  let redisFailure: (error: Error) => void = () => {};
  // Unreachable now is no reason not to start: limits fail open or closed until it is back.
  redis?.connect().catch(() => {});
  const counters =
    options.counters ??
    (redis
      ? new RedisCounters({
          client: redis,
          onError: file.redis?.on_error ?? "open",
          onFailure: (error) => redisFailure(error),
        })
      : new MemoryCounters());
  const gate = new StoreGate({
    sources,
    enforcer: new LimitEnforcer({
      counters,
      spend: (filter) => store.logs.spend(filter),
    }),
    context: management.context,
  });
  const metricsToken = file.metrics?.token ?? (env.GUARDGATE_METRICS_TOKEN || undefined);
  let executor: (() => Executor) | undefined;
  let warmed: WarmUpReport | undefined;
  let fileOrganization: string | undefined;
  const reloader =
    options.configPath && options.file
      ? new ConfigReloader({ path: options.configPath, applied: options.file, store, management, sources })
      : undefined;
  const fileRecords = reloader && new FileRecordIndex(reloader.path, file.settings?.file_records_editable ?? false);
  const metrics = metricsToken
    ? new GatewayMetrics({
        executor: () => executor!(),
        logQueue: () => sink.pending,
        isCheck: (id) => app?.guardgate.engine.registry.get(id) !== undefined,
        isTool: (server, tool) => app?.guardgate.isListedTool(server, tool) ?? false,
      })
    : undefined;
  const reload = async (): Promise<ReloadReport> => {
    if (!reloader) {
      throw new ManagementError("no_config_file", "the gateway was started without --config: there is no file to reload");
    }
    const log = app?.log;
    try {
      const report = await reloader.reload();
      await fileRecords?.refresh(store, reloader.applied);
      log?.info({ removed: report.removed, restart_needed: report.restart_needed }, describeReload(report));
      if (report.restart_needed.length)
        log?.warn(`config file: ${report.restart_needed.join(", ")} changed; restart the gateway to apply them`);
      return report;
    } catch (error) {
      log?.error((error as Error).message);
      throw error;
    }
  };
  return {
    store,
    dataDir,
    ...(redis && { redis }),
    management,
    sources,
    sink,
    appOptions: {
      // Records come from the store; only the file's plugins, settings and MCP servers reach the app itself.
      file: {
        ...(file.plugins && { plugins: file.plugins }),
        ...(file.settings && { settings: file.settings }),
        ...(file.mcp_servers && { mcp_servers: file.mcp_servers }),
      },
      apiKeys: sources.apiKeys,
      providers: sources.providers,
      guardrails: sources.guardrails,
      configs: sources.configs,
      pluginCredentials: sources.pluginCredentials,
      policies: sources.policies,
      mcpServers: new StoreMcpServerSource(management.context),
      mcpToolPins: new StoreToolPins(management.context),
      logSink: metrics ? new MetricsLogSink(sink, metrics) : sink,
      // With Redis, every instance shares one response cache.
      ...(redis && {
        answerCache: new RedisResponseCache({
          client: redis,
          ...(file.settings?.cache_max_bytes !== undefined && { maxBytes: file.settings.cache_max_bytes }),
        }),
      }),
      gate,
      // Bodies go to the sink only for workspaces that keep them (the sink drops any others).
      logBodies: (workspaceId: string) => sink.keepsBodies(workspaceId),
      storedResponses: store.storedResponses,
    },
    async setup(built) {
      app = built;
      logError = (error, size) => {
        // A lock another process holds is no fault of the gateway's: the batch waits for it.
        const locked = (error as { code?: unknown }).code === "store_busy" || isBusy(error);
        built.log[locked ? "warn" : "error"](
          { err: error },
          `writing ${size} request log record(s) failed${locked ? ": the store is locked by another process" : ""}; retrying (records are kept)`,
        );
      };
      let lastRedisWarning = 0;
      redisFailure = (error) => {
        // At most one line every 10 s while Redis is down, not one per request.
        if (Date.now() - lastRedisWarning < 10_000) return;
        lastRedisWarning = Date.now();
        built.log.warn({ err: error }, `Redis is unreachable: limits fail ${file.redis?.on_error ?? "open"} until it is back`);
      };
      sources.onInvalidate(() => built.guardgate.invalidateRouting());
      // Instances starting together on an empty shared store: one makes the first organization.
      const initial = await (store.exclusively
        ? store.exclusively(() => bootstrap(management, dataDir))
        : bootstrap(management, dataDir));
      let seeded: SeedReport | undefined;
      try {
        // All of the file or none of it: a mistake in its last record leaves no earlier one behind.
        const file = options.file;
        if (file)
          seeded = await (store.atomically
            ? store.atomically(() => seedFromFile(management, file))
            : seedFromFile(management, file));
      } catch (error) {
        // The first start's keys were made but will not be printed: say where they are.
        if (initial && error instanceof Error)
          error.message += ` (the first organization and its keys were created; they are in ${initial.file})`;
        throw error;
      }
      const report: SetupReport = { counts: await storeCounts(store), ...(initial && { initial }), ...(seeded && { seeded }) };
      fileOrganization = (await store.organizations.list())[0]?.id;
      if (fileRecords && reloader) await fileRecords.refresh(store, reloader.applied);
      await built.register(adminPlugin, {
        management,
        sources,
        throttle: built.guardgate.authThrottle,
        reload: { run: reload, organization: () => fileOrganization },
        ...(fileRecords && { fileRecords }),
      });
      await built.register(feedbackRoutes, {
        keys: sources.apiKeys,
        throttle: built.guardgate.authThrottle,
        rate: new FeedbackRate({ counters }),
        service: new FeedbackService({
          store,
          recent: built.guardgate.recentRequests,
          ...(metrics && { onStored: feedbackCounter(metrics.registry) }),
        }),
      });
      executor = () => built.guardgate.engine.executor;
      if (metrics && metricsToken) metricsRoute(built, metrics, metricsToken, built.guardgate.authThrottle);
      readyRoute(
        built,
        readinessProbes(store, built, redis, () => warmed !== undefined),
      );
      await built.register(consolePlugin);
      built.addHook("onClose", async () => {
        // Hooks run in reverse order: this one before the gateway's own, so first let every
        // answered request reach the sink, then write them all, then close the store.
        await built.guardgate.drainLogs();
        try {
          await sink.stop();
        } finally {
          await logThread?.close();
          sources.close();
          redis?.disconnect();
          await store.close();
        }
      });
      return report;
    },
    async warm(built) {
      const started = performance.now();
      let report: WarmUpReport;
      try {
        report = await warmUp(store, built.guardgate.engine);
      } catch (error) {
        built.log.error({ err: error }, `warm-up failed (${(error as Error).message}); /ready answers 503`);
        throw error;
      }
      for (const problem of report.problems) built.log.warn(`warm-up: skipped ${problem}`);
      for (const failure of report.failed) built.log.warn(`warm-up: ${failure.id} did not load: ${failure.message}`);
      built.log.info(
        { loaded: report.loaded, threads: report.threads, ms: Math.round(performance.now() - started) },
        `warm-up done: ${report.threads} worker thread(s) started, ${report.loaded.length} check(s) loaded${report.loaded.length ? ` (${report.loaded.join(", ")})` : ""}`,
      );
      warmed = report;
    },
    get warmedUp() {
      return warmed;
    },
    get fileOrganization() {
      return fileOrganization;
    },
    reload,
    abandon: async () => {
      redis?.disconnect();
      await logThread?.close();
      await store.close();
    },
  };
}

/** Options of `startManagedServer`: `guardgate serve`'s, plus the data folder. */
export interface ManagedServeOptions extends Omit<ServeOptions, "setup">, Omit<ManagedOptions, "file"> {}

/** A running managed gateway and what its start did. */
export interface RunningManagedServer extends RunningServer {
  report: SetupReport;
  managed: ManagedGateway;
}

/** `guardgate serve`: loads the file, opens the store, builds, sets up and listens. */
export async function startManagedServer(options: ManagedServeOptions): Promise<RunningManagedServer> {
  const loaded = options.configPath ? await loadGatewayFile(options.configPath) : undefined;
  const managed = await prepareManagedGateway({ ...options, ...(loaded && { file: loaded.file }) });

  let report: SetupReport | undefined;
  let server: RunningServer;
  try {
    const { configPath: _file, ...serve } = options;
    server = await startServer({
      ...serve,
      app: { ...managed.appOptions, ...(loaded && { baseDir: loaded.dir }), ...options.app },
      setup: async (app) => {
        report = await managed.setup(app);
      },
      warmUp: (app) => managed.warm(app),
    });
  } catch (error) {
    // Once set up, closing the app closed the store; before, nobody else will.
    await managed.abandon().catch(() => {});
    throw error;
  }
  return { ...server, report: report as SetupReport, managed };
}
