/**
 * The gateway over the store: the store's cached sources, request log sink and request policy in
 * place of the in-memory ones, then — on the built app, before it listens — bootstrapping of an
 * empty store, seeding from the config file, the admin API, plan-cache invalidation on change,
 * and a stop that writes every request log before the store closes.
 */
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { adminPlugin } from "../admin/plugin.js";
import type { AppOptions } from "../app.js";
import { type GatewayFile, loadGatewayFile } from "../config-file.js";
import { type Counters, MemoryCounters } from "../limits/counters.js";
import { LimitEnforcer } from "../limits/enforcer.js";
import type { BatchWriterOptions } from "../logs/batch-writer.js";
import { LogWriterThread } from "../logs/log-writer-thread.js";
import { StoreLogSink } from "../logs/store-sink.js";
import { validateGatewayConfig } from "../plan/schema.js";
import { isKnownProvider } from "../providers/catalog.js";
import { type RunningServer, type ServeOptions, startServer } from "../serve.js";
import { DATABASE_FILE } from "../store/data-dir.js";
import { openStore } from "../store/open.js";
import type { Store } from "../store/repository.js";
import { DEFAULT_CUSTOM_HOSTS } from "../upstream/client.js";
import { bootstrap, type InitialKeys } from "./bootstrap.js";
import { GatewaySources } from "../sources/store.js";
import { Management } from "../management/index.js";
import { StorePolicy } from "../limits/request-policy.js";
import { type SeedReport, seedFromFile } from "./seed.js";

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
  management: Management;
  sources: GatewaySources;
  sink: StoreLogSink;
  /** Options for `buildApp`: the store's sources, sink and policy, and the file's plugins and settings. */
  appOptions: AppOptions;
  /** Call on the built app before it listens. */
  setup(app: FastifyInstance): Promise<SetupReport>;
  /** Closes the store when the app was never built. */
  abandon(): Promise<void>;
}

/** Opens the store and prepares everything the app needs from it. */
export async function prepareManagedGateway(options: ManagedOptions = {}): Promise<ManagedGateway> {
  const opened = await openStore({
    ...(options.dataDir !== undefined && { dataDir: options.dataDir }),
    ...(options.env && { env: options.env }),
    ...(options.onKeyGenerated && { onKeyGenerated: options.onKeyGenerated }),
    ...(options.externalChangePollMs !== undefined && { externalChangePollMs: options.externalChangePollMs }),
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
    // A workspace admin's integration is held to the policy for hosts clients choose.
    workspaceAddressPolicy: {
      allowLoopback: options.file?.settings?.custom_hosts?.allow_loopback ?? DEFAULT_CUSTOM_HOSTS.allowLoopback,
      allowPrivate: options.file?.settings?.custom_hosts?.allow_private ?? DEFAULT_CUSTOM_HOSTS.allowPrivate,
    },
  });
  const sources = new GatewaySources(management.context);
  const file = options.file ?? {};
  let logError: (error: unknown, size: number) => void = () => {};
  const logThread = new LogWriterThread(path.join(dataDir, DATABASE_FILE));
  const sink = new StoreLogSink({
    store,
    sources,
    insert: (batch) => logThread.insert(batch),
    logBodiesDefault: file.settings?.log_bodies ?? false,
    ...options.logWriter,
    onError: (error, size) => logError(error, size),
  });
  const policy = new StorePolicy({
    sources,
    enforcer: new LimitEnforcer({
      counters: options.counters ?? new MemoryCounters(),
      spend: (filter) => store.logs.spend(filter),
    }),
    context: management.context,
  });
  return {
    store,
    dataDir,
    management,
    sources,
    sink,
    appOptions: {
      // Records come from the store; only the file's plugins and settings reach the app itself.
      file: { ...(file.plugins && { plugins: file.plugins }), ...(file.settings && { settings: file.settings }) },
      apiKeys: sources.apiKeys,
      providers: sources.providers,
      guardrails: sources.guardrails,
      configs: sources.configs,
      pluginCredentials: sources.pluginCredentials,
      logSink: sink,
      policy,
      // The gateway hands bodies over; the sink keeps them only for workspaces that ask.
      logBodies: true,
    },
    async setup(built) {
      app = built;
      logError = (error, size) =>
        built.log.error({ err: error }, `writing ${size} request log record(s) failed; retrying (records are kept)`);
      sources.onInvalidate(() => built.guardgate.invalidatePlans());
      const initial = await bootstrap(management, dataDir);
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
      await built.register(adminPlugin, { management, sources });
      built.addHook("onClose", async () => {
        // Hooks run in reverse order: this one before the gateway's own, so first let every
        // answered request reach the sink, then write them all, then close the store.
        await built.guardgate.drainLogs();
        try {
          await sink.stop();
        } finally {
          await logThread.close();
          sources.close();
          await store.close();
        }
      });
      return report;
    },
    abandon: async () => {
      await logThread.close();
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
    });
  } catch (error) {
    // Once set up, closing the app closed the store; before, nobody else will.
    await managed.abandon().catch(() => {});
    throw error;
  }
  return { ...server, report: report as SetupReport, managed };
}
