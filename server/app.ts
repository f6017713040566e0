/**
 * The gateway app: `buildApp(options)` assembles the sources, the engine, the pipeline and the
 * routes in one place. Sources come from the options or are seeded in memory from the config file;
 * the file's guardrails and configs are checked here, so a bad file never starts.
 */
import path from "node:path";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import {
  type CheckSettings,
  ConfigError,
  createEngine,
  type Engine,
  type EngineOptions,
  type PluginSpec,
} from "../core/index.js";
import { builtinPlugins } from "../plugins/builtin.js";
import { resolveDeclaredModels } from "../plugins/model/shared/declared-models.js";
import type { AddressPolicy } from "../core/internal.js";
import { AuthThrottle, type AuthThrottleOptions, trustedProxies } from "./auth-throttle.js";
import type { GatewayFile } from "./sources/config-file.js";
import { checkFile } from "./file-check.js";
import { answerClientError, ConnectionTracker } from "./connections.js";
import { GATEWAY_ERRORS } from "./error-codes.js";
import { describeError, storeRetryAfter } from "./describe-error.js";
import { errorBody } from "./errors.js";
import { errorFormatOf } from "./formats/index.js";
import { RecentRequests } from "./feedback/recent-requests.js";
import { AccessLog, genReqId, REQUEST_ID_HEADER, WarningLogSink } from "./logs/process-log.js";
import { InMemoryRequestLogSink, type RequestLogSink } from "./logs/sink.js";
import { Pipeline } from "./request/pipeline.js";
import { Phases } from "./request/phases.js";
import type { RequestGate } from "./request-gate.js";
import { type AnswerCache, ResponseCache, type ResponseCacheOptions } from "./request/response-cache.js";
import type { RetryTiming } from "./request/retry.js";
import { type RoutingCacheOptions, RoutingResolver } from "./routing/resolver.js";
import { PolicyAttacher } from "./policies/attach.js";
import { ProviderResolver } from "./providers/resolve.js";
import { healthRoute } from "./routes/health.js";
import { traceRequests } from "./tracing/tracer.js";
import { TracedPhases } from "./tracing/traced-phases.js";
import { InMemoryToolPins } from "./tool-guard/memory-pins.js";
import { ToolGuard } from "./tool-guard/tool-guard.js";
import { TracedUpstream } from "./tracing/traced-upstream.js";
import { accessDestination, flushAccessLog } from "./logs/access-destination.js";
import { hookRoutes } from "./routes/hooks.js";
import { HEADER } from "./gateway-headers.js";
import { assertJsonTextDepth, requireApiKey } from "./request/open.js";
import { inferenceRoutes } from "./routes/inference.js";
import { responsesRoutes } from "./routes/responses.js";
import { Conversations } from "./providers/conversations.js";
import { MemoryStoredResponses } from "./store/memory-responses.js";
import type { StoredResponseRepository } from "./store/repository.js";
import { countTokensRoute } from "./routes/count-tokens.js";
import { TokenCounter } from "./request/count-tokens.js";
import { McpGateway, type McpGatewayOptions } from "./mcp/gateway.js";
import type { McpInterceptor } from "./mcp/intercept.js";
import { mcpRoutes } from "./mcp/route.js";
import { DEFAULT_WORKSPACE, sourcesFromFile } from "./sources/from-file.js";
import type {
  ApiKeySource,
  ConfigSource,
  GuardrailSource,
  McpServerSource,
  PluginCredentialSource,
  PolicySource,
  ProviderSource,
  ToolPinSource,
} from "./sources/types.js";
import { DEFAULT_CUSTOM_HOSTS, UpstreamClient, type UpstreamOptions } from "./upstream/client.js";

export { DEFAULT_WORKSPACE };

/** Options of `buildApp`. */
export interface AppOptions {
  /** A loaded config file: seeds the in-memory sources and supplies settings. */
  file?: GatewayFile;
  /** Folder the file's plugin paths resolve from; the cwd by default. */
  baseDir?: string;
  /** Sources replacing the in-memory ones (the store). */
  apiKeys?: ApiKeySource;
  providers?: ProviderSource;
  guardrails?: GuardrailSource;
  configs?: ConfigSource;
  /** Credentials held for plugins (the store's plugin integrations); the file's `plugin_credentials` otherwise. */
  pluginCredentials?: PluginCredentialSource;
  /** MCP servers besides the file's (the store's), looked up before the file's `mcp_servers`. Stdio servers come from the file only. */
  mcpServers?: McpServerSource;
  /** The checks on MCP traffic (server/mcp/intercept.ts); the tool guard (server/tool-guard/) when absent. */
  mcpInterceptor?: McpInterceptor;
  /** Where pinned tool definitions are kept (the store's); in memory when absent. */
  mcpToolPins?: ToolPinSource;
  /** Session bounds and stdio restart pauses of the MCP gateway. */
  mcp?: Pick<McpGatewayOptions, "sessions" | "backoff" | "maxMessageBytes">;
  /** Policies whose guardrails every request in their scope runs (the store's); none when absent. */
  policies?: PolicySource;
  logSink?: RequestLogSink;
  /** Plan gating, model allow-lists, rate limits and budgets (the management plane); none when absent. */
  gate?: RequestGate;
  /** Plugins besides the file's. */
  plugins?: PluginSpec[];
  /** How guardrail phases run (core/executor.ts); inline when absent. */
  executor?: EngineOptions["executor"];
  checkSettings?: CheckSettings;
  /** Largest request body in bytes; default 4 MiB (the file's `settings.body_limit` otherwise). */
  bodyLimit?: number;
  upstream?: UpstreamOptions;
  retry?: RetryTiming;
  cache?: ResponseCacheOptions;
  /** A shared response cache (Redis) in place of the in-memory one. */
  answerCache?: AnswerCache;
  routingCache?: RoutingCacheOptions;
  /** Keep request and response bodies in the request log: always, never, or as each request's workspace says. */
  logBodies?: boolean | ((workspaceId: string) => Promise<boolean>);
  /** Where Responses answered through chat are kept (the store's); in memory otherwise. */
  storedResponses?: StoredResponseRepository;
  /** Throttling of unknown API keys per source (auth-throttle.ts); defaults: 10 a minute. */
  authThrottle?: AuthThrottleOptions;
  /** pino options (level…) or false for no log; credentials headers are always redacted. */
  logger?: false | { level?: string; stream?: NodeJS.WritableStream };
}

/** What the app exposes to its owner (the serve command, tests, the management layer). */
export interface GuardgateHandle {
  engine: Engine;
  apiKeys: ApiKeySource;
  providers: ProviderSource;
  guardrails: GuardrailSource;
  configs: ConfigSource;
  logSink: RequestLogSink;
  /** Drops cached routings, policy sets and plugin credentials; call after a config, guardrail, policy or plugin changed. */
  invalidateRouting(): void;
  /** Destroys every client connection: for a graceful stop whose grace period ran out. */
  closeConnections(): void;
  /** Resolves once every request log begun so far has reached the log sink. */
  drainLogs(): Promise<void>;
  /** Request ids answered lately, for feedback that comes before their record is stored. */
  recentRequests: RecentRequests;
  /** Unknown API keys counted per source, for every route that takes a key. */
  authThrottle: AuthThrottle;
  /** Whether an MCP server listed a tool to a client: metric labels take only such names. */
  isListedTool(server: string, tool: string): boolean;
  /** Counts of what was loaded from the file, for the start-up line. */
  loaded: { apiKeys: number; providers: number; guardrails: number; configs: number; plugins: number };
}

declare module "fastify" {
  interface FastifyInstance {
    guardgate: GuardgateHandle;
  }
}

/** Headers whose values never reach the log. */
export const REDACTED_HEADERS = ["authorization", "x-api-key", "x-gateway-api-key", "cookie", "proxy-authorization"];

function loggerOption(option: AppOptions["logger"]): FastifyServerOptions["logger"] {
  if (option === false) return false;
  // No `req.headers` paths: fastify's `req` serializer writes no header but `accept-version`, and a
  // path under `req` had every access line's `req` cloned and walked by the redactor (3.5 KB each).
  const paths = REDACTED_HEADERS.flatMap((name) => [`headers["${name}"]`, `request.headers["${name}"]`]);
  return {
    level: option?.level ?? "info",
    redact: { paths, censor: "[REDACTED]" },
    // stdout, unless told otherwise, through one buffered asynchronous destination (access-destination.ts).
    stream: option?.stream ?? accessDestination(),
  } as FastifyServerOptions["logger"];
}

/** What a check's refused outbound call tells a gateway user: the config-file key they would change. */
export const CHECKS_REFUSAL_ADVICE =
  "to let checks reach private and loopback addresses, set settings.checks_allow_private_addresses: true in the gateway's config file";

/** The file's `custom_hosts` setting as an address policy. */
function upstreamCustomHosts(setting: { allow_loopback?: boolean; allow_private?: boolean } | undefined): AddressPolicy {
  return {
    allowLoopback: setting?.allow_loopback ?? DEFAULT_CUSTOM_HOSTS.allowLoopback,
    allowPrivate: setting?.allow_private ?? DEFAULT_CUSTOM_HOSTS.allowPrivate,
  };
}

/** Builds the gateway app; call `listen` on it, or `inject` in tests. */
export async function buildApp(options: AppOptions = {}): Promise<FastifyInstance> {
  const file = options.file ?? {};
  const settings = file.settings ?? {};
  const baseDir = path.resolve(options.baseDir ?? process.cwd());
  const trustProxy = trustedProxies(settings.trust_proxy);

  // Policies live in the store, which a gateway run from the file alone does not have: never ignore them silently.
  if (file.policies?.length && !options.policies) {
    throw new ConfigError(
      "policies",
      "policies are kept in the store: run `guardgate serve --config FILE`, which seeds them from the file",
    );
  }
  const seeded = sourcesFromFile(file, baseDir);
  const apiKeys = options.apiKeys ?? seeded.apiKeys;
  const providers = options.providers ?? seeded.providers;
  const guardrails = options.guardrails ?? seeded.guardrails;
  const configs = options.configs ?? seeded.configs;
  const pluginCredentials = options.pluginCredentials ?? seeded.pluginCredentials;
  const logSink = options.logSink ?? new InMemoryRequestLogSink();

  const plugins = [...(file.plugins ?? []), ...(options.plugins ?? [])];
  const declaredModels = await resolveDeclaredModels(file.models, baseDir);
  const engine = await createEngine({
    builtins: builtinPlugins,
    plugins,
    baseDir,
    source: guardrails,
    settings: {
      ...(options.checkSettings ?? {
        allowPrivateAddresses: settings.checks_allow_private_addresses ?? false,
        refusalAdvice: CHECKS_REFUSAL_ADVICE,
      }),
      ...declaredModels,
    },
    ...(options.executor && { executor: options.executor }),
  });
  try {
    await checkFile(file, engine);
  } catch (error) {
    await engine.close();
    throw error;
  }

  const bodyLimit = options.bodyLimit ?? settings.body_limit ?? 4 * 1024 * 1024;
  const app = Fastify({
    logger: loggerOption(options.logger),
    bodyLimit,
    // Inline configs travel in a header; Node's default 16 KiB is kept, the body carries the rest.
    // A request already sent on a keep-alive connection when a stop begins is answered, with
    // `Connection: close`, and recorded like any other (connections.ts), never reset or refused.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    requestIdHeader: false,
    genReqId,
    // Behind a load balancer the client is named by X-Forwarded-For, when the balancer is trusted.
    trustProxy,
    logController: new AccessLog(),
    clientErrorHandler: answerClientError,
  });

  // Every answer names its request; the access line and the request log use the same id.
  // A callback hook, not an async one: no promise per request for one header.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // What went wrong in a request (a deny, a check error, an upstream 5xx) is a warn line too.
  const recordSink = new WarningLogSink(logSink, app.log);

  // Traced only when asked: each span costs even with no SDK to receive it.
  const upstream = new (settings.tracing ? TracedUpstream : UpstreamClient)({
    ...(settings.request_timeout !== undefined && { timeoutMs: settings.request_timeout }),
    ...(settings.stream_event_timeout !== undefined && { streamEventTimeoutMs: settings.stream_event_timeout }),
    customHosts: upstreamCustomHosts(settings.custom_hosts),
    ...options.upstream,
  });
  const routing = new RoutingResolver(engine, configs, options.routingCache, options.gate, app.log);
  const requestGate = options.gate;
  const attacher =
    options.policies &&
    new PolicyAttacher(
      engine,
      options.policies,
      {},
      requestGate && ((g, scope, where) => requestGate.allowGuardrails(g, scope, where)),
    );
  const providerResolver = new ProviderResolver(providers);
  const phases = new (settings.tracing ? TracedPhases : Phases)(
    engine,
    (error) => app.log.error({ err: error }, "an asynchronous guardrail failed to run"),
    pluginCredentials,
    providerResolver,
  );
  const logBodies = options.logBodies ?? settings.log_bodies ?? false;
  const conversations = new Conversations(
    options.storedResponses ?? new MemoryStoredResponses(),
    typeof logBodies === "function" ? logBodies : () => logBodies,
  );
  const pipeline = new Pipeline({
    routing,
    providers: providerResolver,
    phases,
    upstream,
    cache:
      options.answerCache ??
      new ResponseCache({
        ...(settings.cache_max_bytes !== undefined && { maxBytes: settings.cache_max_bytes }),
        ...options.cache,
      }),
    logSink: recordSink,
    logger: app.log,
    retryTiming: options.retry ?? {},
    logBodies,
    conversations,
    ...(settings.log_body_max_bytes !== undefined && { logBodyMaxBytes: settings.log_body_max_bytes }),
    ...(settings.log_durable && { durableLogs: true }),
    ...(settings.stream_check_budget_ms !== undefined && { streamCheckBudgetMs: settings.stream_check_budget_ms }),
    ...(options.gate && { gate: options.gate }),
    ...(attacher && { policies: attacher }),
  });

  const toolGuard = new ToolGuard({
    phases,
    registry: engine.registry,
    ...(options.gate?.admitCall && { admit: (identity) => options.gate!.admitCall!(identity) }),
    pins: options.mcpToolPins ?? new InMemoryToolPins(),
    ...(attacher && { policies: attacher }),
    log: {
      sink: recordSink,
      logBodies: options.logBodies ?? settings.log_bodies ?? false,
      ...(settings.log_body_max_bytes !== undefined && { bodyMaxBytes: settings.log_body_max_bytes }),
      ...(settings.log_durable && { durable: true }),
    },
    onLogError: (error) => app.log.error({ err: error }, "an MCP call's record could not be written"),
  });
  const mcp = new McpGateway({
    // The store's servers (a workspace's own) first, then the file's.
    servers: options.mcpServers
      ? {
          get: async (name, scope) => (await options.mcpServers!.get(name, scope)) ?? (await seeded.mcpServers.get(name, scope)),
        }
      : seeded.mcpServers,
    stdioServers: seeded.mcpServers.all(),
    interceptor: options.mcpInterceptor ?? toolGuard,
    customHosts: upstreamCustomHosts(settings.custom_hosts),
    log: app.log,
    ...options.mcp,
  });
  const connections = new ConnectionTracker(app.server);
  const recentRequests = new RecentRequests();
  const authThrottle = new AuthThrottle(options.authThrottle);
  app.decorate("guardgate", {
    engine,
    apiKeys,
    providers,
    guardrails,
    configs,
    logSink,
    invalidateRouting: () => {
      routing.invalidate();
      attacher?.invalidate();
      phases.forgetCredentials();
    },
    closeConnections: () => connections.closeAll(),
    drainLogs: () => pipeline.drain(),
    recentRequests,
    authThrottle,
    isListedTool: (server, tool) => !options.mcpInterceptor && toolGuard.listed.has(server, tool),
    loaded: {
      apiKeys: file.api_keys?.length ?? 0,
      providers: file.providers?.length ?? 0,
      guardrails: file.guardrails?.length ?? 0,
      configs: file.configs?.length ?? 0,
      plugins: plugins.length,
    },
  } satisfies GuardgateHandle);

  app.setErrorHandler((error, request, reply) => {
    const { status, code, message } = describeError(error, bodyLimit);
    const retryAfter = storeRetryAfter(code);
    if (retryAfter !== undefined) {
      reply.header("retry-after", String(retryAfter));
      request.log.warn({ cause: (error as Error).message }, "request refused: the store cannot be reached");
    } else if (status >= 500) request.log.error({ err: error }, "request failed");
    reply.code(status).send(errorBody(errorFormatOf(request.url).name, status, code, message));
  });
  app.setNotFoundHandler((request, reply) => {
    const { status } = GATEWAY_ERRORS.not_found;
    reply
      .code(status)
      .send(
        errorBody(
          errorFormatOf(request.url).name,
          status,
          "not_found",
          `${request.method} ${request.url.split("?")[0]} is not a route of this gateway`,
        ),
      );
  });

  if (settings.tracing) traceRequests(app);
  // Every JSON body, on every route: absurd nesting is refused at intake, before it is parsed
  // (request/open.ts); the parse itself is fastify's own, prototype-poisoning guard included.
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    try {
      assertJsonTextDepth(body as string);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
  healthRoute(app);
  await app.register(async (scope) => {
    requireApiKey(scope, apiKeys, authThrottle);
    // The moment a caller learns a request id, feedback on it is accepted (server/feedback).
    scope.addHook("onSend", (request, reply, payload, done) => {
      const id = reply.getHeader(HEADER.requestId);
      if (typeof id === "string" && request.identity) recentRequests.add(id, request.identity.workspaceId);
      done(null, payload);
    });
    inferenceRoutes(scope, pipeline, bodyLimit);
    responsesRoutes(scope, conversations, { routing, providers: providerResolver, upstream });
    const counter = new TokenCounter({ providers: providerResolver, upstream, ...(requestGate && { gate: requestGate }) });
    countTokensRoute(scope, counter, routing);
  });
  await app.register(async (scope) => {
    requireApiKey(scope, apiKeys, authThrottle);
    mcpRoutes(scope, mcp, bodyLimit);
  });
  await app.register(async (scope) => {
    requireApiKey(scope, apiKeys, authThrottle, { adminInWorkspace: true });
    hookRoutes(scope, {
      registry: engine.registry,
      pipeline,
      routing,
      guardrails,
      ...(options.gate && { gate: options.gate }),
      ...(attacher && { policies: attacher, providers: providerResolver }),
    });
  });

  app.addHook("preClose", async () => {
    // An MCP session's GET stream would hold its connection open through the stop.
    await mcp.closeSessions();
    connections.closeIdle();
  });
  app.addHook("onClose", async () => {
    // Asynchronous guardrails of answered requests still run: their records come before the engine stops.
    await pipeline.drain();
    await Promise.all([engine.close(), upstream.close(), mcp.close()]);
    flushAccessLog();
  });
  return app;
}
